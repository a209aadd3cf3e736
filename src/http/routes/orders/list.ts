import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppDeps } from '../../../deps.js';
import {
  countOrders,
  findActivations,
  listOrders,
} from '../../../store/repositories/order-repository.js';
import { orderNumbersInTime } from '../../../store/repositories/order-time-repository.js';
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

const inBounds = (at: string, b: { from?: string; to?: string }): boolean =>
  (b.from === undefined || at >= b.from) && (b.to === undefined || at <= b.to);

export function registerListOrders(app: Api, deps: AppDeps): void {
  app.get('/orders', { schema }, async (request, reply) => {
    const db = deps.store.db;
    const orgId = request.organisation.id;
    const page = requestedPage(request.query, DEFAULT_PER_PAGE);
    // The total first: the page is the rows numbered below it, however many orders arrive meanwhile.
    let total = await countOrders(db, orgId);
    let first = 1;
    const within = createdWithin(request);
    if (within !== undefined) {
      const numbers = within.empty
        ? { first: 1, last: 0 }
        : await orderNumbersInTime(db, orgId, within, total);
      first = numbers.first;
      total = Math.max(0, numbers.last - numbers.first + 1);
    }
    let orders = await listOrders(db, orgId, {
      offset: page.offset,
      limit: page.perPage,
      total,
      first,
    });
    if (within !== undefined) orders = orders.filter((o) => inBounds(o.createdAt, within));
    const iccids = orders.filter((o) => o.assign).flatMap((o) => o.items.flatMap((i) => i.iccids));
    // A deleted eSIM's activation code is not shown again.
    const activations = await findActivations(db, orgId, iccids, true);
    setPagingHeaders(reply, deps.config.publicBaseUrl, request.url, page, total);
    return present(
      request,
      'listOrders',
      orders.map((order) => ({ order, activations })),
    );
  });
}
