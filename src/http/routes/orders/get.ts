import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { isStillProcessing, stillProcessing } from '../../../domain/deferred/submit.js';
import { notFound } from '../../../domain/errors/error-codes.js';
import { readOrder } from '../../../domain/orders/order-reads.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { can } from '../../versions/capabilities.js';
import { present, presented } from '../../versions/presenter.js';
import { OrderSchema } from './order-schema.js';

const schema = {
  tags: ['Orders'],
  operationId: 'getOrder',
  summary: 'Get an order with its total cost and contents',
  security: apiKeySecurity,
  params: Type.Object({
    orderReference: Type.String({
      maxLength: 100,
      description: 'The orderReference returned when the order was placed.',
    }),
  }),
  response: {
    200: presented(OrderSchema),
    403: standardErrors[403],
    404: standardErrors[404],
    500: standardErrors[500],
  },
};

export function registerGetOrder(app: Api, deps: AppDeps): void {
  app.get('/orders/:orderReference', { schema }, async (request) => {
    const { orderReference } = request.params;
    const organisationId = request.organisation.id;
    const read = await readOrder(deps, organisationId, orderReference);
    if (read !== undefined) return present(request, 'getOrder', read);
    // v2.2+: an order accepted for the background and not yet placed is still processing.
    if (
      can(request, 'asyncOrders') &&
      (await isStillProcessing(deps, organisationId, orderReference))
    ) {
      throw stillProcessing(orderReference);
    }
    // Another organisation's order reads exactly like one that does not exist.
    throw notFound(`order ${orderReference} not found`);
  });
}
