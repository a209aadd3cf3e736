import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { notFound } from '../../../domain/errors/error-codes.js';
import { findActivations, findOrder } from '../../../store/repositories/order-repository.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { OrderSchema, orderBody } from './order-schema.js';

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
    200: OrderSchema,
    403: standardErrors[403],
    404: standardErrors[404],
    500: standardErrors[500],
  },
};

export function registerGetOrder(app: Api, deps: AppDeps): void {
  app.get('/orders/:orderReference', { schema }, async (request) => {
    const db = deps.store.db;
    const { orderReference } = request.params;
    const order = await findOrder(db, request.organisation.id, orderReference);
    // Another organisation's order reads exactly like one that does not exist.
    if (order === undefined) throw notFound(`order ${orderReference} not found`);
    const activations = order.assign
      ? await findActivations(
          db,
          order.organisationId,
          order.items.flatMap((i) => i.iccids),
        )
      : new Map();
    return orderBody(order, activations);
  });
}
