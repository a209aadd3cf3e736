import { getDelivery } from '../../../domain/callbacks/deliveries.js';
import type { AppDeps } from '../../../deps.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { DeliveryDetailSchema, IdParams, TAG } from './delivery-schema.js';

const schema = {
  tags: [TAG],
  operationId: 'getCallback',
  summary: 'Get one usage callback with its attempts',
  description:
    'The event body as stored (V3 shape), its delivery state, and every attempt with its time, ' +
    'status, latency, error and the start of the response.',
  'x-extension': true,
  security: apiKeySecurity,
  params: IdParams,
  response: {
    200: DeliveryDetailSchema,
    403: standardErrors[403],
    404: standardErrors[404],
    500: standardErrors[500],
  },
};

export function registerGetCallback(app: Api, deps: AppDeps): void {
  // The response schema serialises only its own fields (the owner id stays out).
  app.get('/callbacks/:id', { schema }, async (request) =>
    getDelivery(deps.store.db, request.organisation.id, request.params.id),
  );
}
