import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { isStillProcessing, stillProcessing } from '../../../domain/deferred/submit.js';
import { notFound } from '../../../domain/errors/error-codes.js';
import { findActivations, findOrder } from '../../../store/repositories/order-repository.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { can } from '../../versions/capabilities.js';
import { present, presented } from '../../versions/presenter.js';
import type { OrderRead } from '../../versions/results.js';
import { OrderSchema } from './order-schema.js';

/** The organisation's order with its eSIMs' activation details, or undefined. */
export async function readOrder(
  deps: Pick<AppDeps, 'store'>,
  organisationId: string,
  orderReference: string,
): Promise<OrderRead | undefined> {
  const db = deps.store.db;
  const order = await findOrder(db, organisationId, orderReference);
  if (order === undefined) return undefined;
  const activations = order.assign
    ? await findActivations(
        db,
        order.organisationId,
        order.items.flatMap((i) => i.iccids),
        true, // a deleted eSIM's activation code is not shown again
      )
    : new Map();
  return { order, activations };
}

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
