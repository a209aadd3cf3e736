import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { RESET_PARTS, resetSimulator } from '../../../domain/simulator/simulator-control.js';
import { resetToSeed } from '../../../domain/simulator/snapshot.js';
import type { Api } from '../../api.js';
import { simErrors, simMarks, simulatorOf } from './sim-schema.js';

export function registerSimReset(app: Api, deps: AppDeps): void {
  app.post(
    '/reset',
    {
      schema: {
        ...simMarks,
        operationId: 'simReset',
        summary: 'Reset the simulator',
        description:
          'Removes every fault, goes back to the configured processing delay, empties the SMS outbox ' +
          'and restarts the network random sequence from SIM_SEED. Organisations, eSIMs, bundles and ' +
          'the clock are kept: the clock never goes back, because stored times would then lie in the future. ' +
          'With `toSeed=true`, goes back to the state SEED_FILE describes instead, in one transaction: ' +
          'everything but the catalogue is emptied, the clock returns to real time, the fixture is loaded again and, under ' +
          'SIM_SEED, the same ICCIDs, references and keys are drawn as on a first start (400 when ' +
          'SEED_FILE is not set).',
        querystring: Type.Object({
          toSeed: Type.Optional(
            Type.Boolean({ description: 'Go back to the SEED_FILE state.', default: false }),
          ),
        }),
        response: {
          200: Type.Object({
            reset: Type.Array(Type.String()),
            organisations: Type.Optional(
              Type.Array(
                Type.Object({
                  id: Type.String(),
                  name: Type.String(),
                  apiKey: Type.String(),
                  iccids: Type.Array(Type.String()),
                }),
                { description: 'toSeed only: the organisations the fixture created.' },
              ),
            ),
          }),
          ...simErrors,
        },
      },
    },
    async (request) => {
      if (request.query.toSeed === true) {
        const organisations = await resetToSeed(deps);
        return { reset: ['everything', ...RESET_PARTS, 'clock'], organisations };
      }
      return { reset: [...(await resetSimulator(deps, simulatorOf(deps)))] };
    },
  );
}
