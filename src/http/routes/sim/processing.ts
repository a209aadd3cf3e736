import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import {
  clearProcessingDelay,
  setProcessingDelay,
} from '../../../domain/simulator/simulator-control.js';
import { readProcessingDelayOverride } from '../../../domain/simulator/simulator-reads.js';
import type { Api } from '../../api.js';
import { simErrors, simMarks } from './sim-schema.js';

const MAX_DELAY_SECONDS = 600;

const Setting = Type.Object({
  delaySeconds: Type.Integer({ description: 'Seconds a new assignment stays Processing.' }),
  source: Type.String({
    description: 'simulator (set here) or config (PROCESSING_DELAY_SECONDS).',
  }),
});

export function registerSimProcessing(app: Api, deps: AppDeps): void {
  const current = async () => {
    const override = await readProcessingDelayOverride(deps.store.db);
    return override === undefined
      ? { delaySeconds: deps.config.processingDelaySeconds, source: 'config' }
      : { delaySeconds: override, source: 'simulator' };
  };

  app.get(
    '/processing',
    {
      schema: {
        ...simMarks,
        operationId: 'simGetProcessing',
        summary: 'Read the bundle processing delay',
        response: { 200: Setting, ...simErrors },
      },
    },
    current,
  );

  app.post(
    '/processing',
    {
      schema: {
        ...simMarks,
        operationId: 'simSetProcessing',
        summary: 'Set the bundle processing delay (slow processing)',
        description:
          'New assignments stay Processing for this long (0 to 600 s), until the clock passes it; the ' +
          'eSIM can still be installed and attach meanwhile. 0 provisions at once. Applies to ' +
          'assignments created from now on; cleared by DELETE or POST /_sim/reset.',
        body: Type.Object(
          {
            delaySeconds: Type.Integer({ minimum: 0, maximum: MAX_DELAY_SECONDS }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Setting, ...simErrors },
      },
    },
    async (request) => {
      await setProcessingDelay(deps, request.body.delaySeconds);
      return current();
    },
  );

  app.delete(
    '/processing',
    {
      schema: {
        ...simMarks,
        operationId: 'simResetProcessing',
        summary: 'Go back to the configured processing delay',
        response: { 200: Setting, ...simErrors },
      },
    },
    async () => {
      await clearProcessingDelay(deps);
      return current();
    },
  );
}
