import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppDeps } from '../../../deps.js';
import { orderActivations, readOrderPage } from '../../../domain/orders/order-reads.js';
import type { Api } from '../../api.js';
import { storedBounds, timeRange } from '../../filters.js';
import { can } from '../../versions/capabilities.js';
import { present, presented } from '../../versions/presenter.js';
import { pagingQuery, requestedPage, setPagingHeaders } from '../../paging.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { OrderList } from './order-schema.js';

const DEFAULT_PER_PAGE = 50;
const MAX_PER_PAGE = 500;

const schema = {
  tags: ['Orders'],
  operationId: 'listOrders',
  summary: 'List the organisation orders, newest first',
  description:
    'The body is a bare array of Order, as for the catalogue; paging metadata is in the ' +
    'X-Total-Count and Link headers.',
  security: apiKeySecurity,
  querystring: Type.Object(
    pagingQuery({
      items: 'Orders',
      defaultPerPage: DEFAULT_PER_PAGE,
      maxPerPage: MAX_PER_PAGE,
      pastEnd: 'returns []',
    }),
  ),
  response: {
    200: presented(OrderList),
    400: standardErrors[400],
    403: standardErrors[403],
    500: standardErrors[500],
  },
};

/**
 * The createdAt conditions of the versions with filter operators (v2.2 and later), as stored
 * bounds; undefined when the version has none or the request sends none.
 */
function createdWithin(request: FastifyRequest): ReturnType<typeof storedBounds> | undefined {
  const conditions = (request.query as { createdAt?: readonly string[] }).createdAt;
  if (!can(request, 'filterOperators') || conditions === undefined) return undefined;
  if (conditions.length === 0) return undefined;
  return storedBounds(timeRange('createdAt', conditions));
}

export function registerListOrders(app: Api, deps: AppDeps): void {
  app.get('/orders', { schema }, async (request, reply) => {
    const db = deps.store.db;
    const orgId = request.organisation.id;
    const page = requestedPage(request.query, DEFAULT_PER_PAGE);
    const { total, orders } = await readOrderPage(
      db,
      orgId,
      { offset: page.offset, limit: page.perPage },
      createdWithin(request),
    );
    const activations = await orderActivations(db, orgId, orders);
    setPagingHeaders(reply, deps.config.publicBaseUrl, request.url, page, total);
    return present(
      request,
      'listOrders',
      orders.map((order) => ({ order, activations })),
    );
  });
}
