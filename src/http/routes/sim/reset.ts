import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { resetSimulator } from '../../../domain/simulator/simulator-control.js';
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
          'the clock are kept: the clock never goes back, because stored times would then lie in the future.',
        response: {
          200: Type.Object({ reset: Type.Array(Type.String()) }),
          ...simErrors,
        },
      },
    },
    async () => ({ reset: [...(await resetSimulator(deps, simulatorOf(deps)))] }),
  );
}
