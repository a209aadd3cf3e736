import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import {
  countOrders,
  findActivations,
  listOrders,
} from '../../../store/repositories/order-repository.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { pagingLinks } from '../catalogue/link-header.js';
import { OrderSchema, orderBody } from './order-schema.js';

export const ORDERS_DEFAULT_PER_PAGE = 50;
export const ORDERS_MAX_PER_PAGE = 500;

const schema = {
  tags: ['Orders'],
  summary: 'List the organisation orders, newest first',
  description:
    'The body is a bare array of Order, as for the catalogue; paging metadata is in the ' +
    'X-Total-Count and Link headers.',
  security: apiKeySecurity,
  querystring: Type.Object({
    page: Type.Optional(
      Type.String({
        pattern: '^[1-9][0-9]{0,8}$',
        default: '1',
        description: 'Page to return, a whole number from 1. A page past the end returns [].',
      }),
    ),
    perPage: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: ORDERS_MAX_PER_PAGE,
        default: ORDERS_DEFAULT_PER_PAGE,
        description: `Orders per page, 1 to ${ORDERS_MAX_PER_PAGE} (default ${ORDERS_DEFAULT_PER_PAGE}).`,
      }),
    ),
  }),
  response: {
    200: Type.Array(OrderSchema, {
      description: 'One page of orders, newest first.',
      headers: {
        'X-Total-Count': { type: 'integer', description: 'Number of orders over all pages.' },
        Link: {
          type: 'string',
          description: 'RFC 8288 links to the next, prev, first and last pages.',
        },
      },
    }),
    400: standardErrors[400],
    403: standardErrors[403],
    500: standardErrors[500],
  },
};

export function registerListOrders(app: Api, deps: AppDeps): void {
  const base = deps.config.publicBaseUrl.replace(/\/+$/, '');
  app.get('/orders', { schema }, async (request, reply) => {
    const db = deps.store.db;
    const orgId = request.organisation.id;
    const page = Number(request.query.page ?? '1');
    const perPage = request.query.perPage ?? ORDERS_DEFAULT_PER_PAGE;
    const [orders, total] = await Promise.all([
      listOrders(db, orgId, { offset: (page - 1) * perPage, limit: perPage }),
      countOrders(db, orgId),
    ]);
    const iccids = orders.filter((o) => o.assign).flatMap((o) => o.items.flatMap((i) => i.iccids));
    const activations = await findActivations(db, orgId, iccids);
    reply.header('x-total-count', String(total));
    reply.header('link', pagingLinks(base, request.url, page, perPage, total));
    return orders.map((o) => orderBody(o, activations));
  });
}
