import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import {
  countOrders,
  findActivations,
  listOrders,
} from '../../../store/repositories/order-repository.js';
import type { Api } from '../../api.js';
import { pagingHeaders, pagingQuery, requestedPage, setPagingHeaders } from '../../paging.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { OrderSchema, orderBody } from './order-schema.js';

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
    200: Type.Array(OrderSchema, {
      description: 'One page of orders, newest first.',
      headers: pagingHeaders('Number of orders over all pages.'),
    }),
    400: standardErrors[400],
    403: standardErrors[403],
    500: standardErrors[500],
  },
};

export function registerListOrders(app: Api, deps: AppDeps): void {
  app.get('/orders', { schema }, async (request, reply) => {
    const db = deps.store.db;
    const orgId = request.organisation.id;
    const page = requestedPage(request.query, DEFAULT_PER_PAGE);
    // The total first: the page is the rows numbered below it, however many orders arrive meanwhile.
    const total = await countOrders(db, orgId);
    const orders = await listOrders(db, orgId, { offset: page.offset, limit: page.perPage, total });
    const iccids = orders.filter((o) => o.assign).flatMap((o) => o.items.flatMap((i) => i.iccids));
    const activations = await findActivations(db, orgId, iccids);
    setPagingHeaders(reply, deps.config.publicBaseUrl, request.url, page, total);
    return orders.map((o) => orderBody(o, activations));
  });
}
