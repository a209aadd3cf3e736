import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { CALLBACK_RECEIVER_PATH } from '../../../demo-data.js';
import type { Api } from '../../api.js';
import { simErrors, simMarks } from './sim-schema.js';

// A callback receiver inside the simulator: it acknowledges every usage callback and keeps
// nothing (the delivery log keeps each attempt). The demo organisation's callback URL points
// here, so its callbacks are delivered, and can be resent, before an integrator has a receiver.

const PATH = CALLBACK_RECEIVER_PATH.replace(/^\/_sim/, '');

/** Whether a /_sim request is for the receiver, which takes no SIM_ADMIN_TOKEN (deliveries send none). */
export const isCallbackReceiver = (routeUrl: string | undefined): boolean =>
  routeUrl === CALLBACK_RECEIVER_PATH;

export function registerSimCallbackReceiver(app: Api, _deps: AppDeps): void {
  app.post(
    PATH,
    {
      schema: {
        ...simMarks,
        operationId: 'simReceiveCallback',
        summary: 'A callback receiver that acknowledges every callback',
        description:
          "Answers 200 to any usage callback (V2 or V3) and keeps nothing; the organisation's " +
          'callback log (GET /v2.1/callbacks, the portal) shows each delivery. The demo ' +
          'organisation starts with its callback URL here, at the address of the first start, so ' +
          'its callbacks are delivered and can be resent before you have a receiver: set yours ' +
          "on the portal's API & callbacks page or with `esim org update <id> --callback-url …`. " +
          'Needs no SIM_ADMIN_TOKEN.',
        body: Type.Object({}, { additionalProperties: true, description: 'A usage callback.' }),
        response: {
          200: Type.Object(
            { acknowledged: Type.Boolean() },
            { description: 'Acknowledged.', examples: [{ acknowledged: true }] },
          ),
          400: simErrors[400],
          500: simErrors[500],
        },
      },
    },
    async () => ({ acknowledged: true }),
  );
}
