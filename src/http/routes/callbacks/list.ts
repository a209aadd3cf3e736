import { Type } from '@sinclair/typebox';
import { listDeliveries } from '../../../callbacks/deliveries.js';
import type { AppDeps } from '../../../deps.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { pagingLinks } from '../catalogue/link-header.js';
import { DeliverySummarySchema, StatusEnum, TAG } from './delivery-schema.js';

const DEFAULT_PER_PAGE = 50;
const MAX_PER_PAGE = 500;

const schema = {
  tags: [TAG],
  summary: 'List usage callback deliveries',
  description:
    'The organisation usage callbacks, newest first, with their delivery state. Paging metadata ' +
    'is in the X-Total-Count and Link headers.',
  'x-extension': true,
  security: apiKeySecurity,
  querystring: Type.Object({
    status: Type.Optional(StatusEnum),
    page: Type.Optional(
      Type.String({
        pattern: '^[1-9][0-9]{0,8}$',
        default: '1',
        description: 'Page to return, a whole number from 1. A page past the end is empty.',
      }),
    ),
    perPage: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_PER_PAGE,
        default: DEFAULT_PER_PAGE,
        description: `Deliveries per page, 1 to ${MAX_PER_PAGE} (default ${DEFAULT_PER_PAGE}).`,
      }),
    ),
  }),
  response: {
    200: Type.Object(
      { callbacks: Type.Array(DeliverySummarySchema) },
      {
        headers: {
          'X-Total-Count': {
            type: 'integer',
            description: 'Deliveries matching the filter, over all pages.',
          },
          Link: {
            type: 'string',
            description: 'RFC 8288 links to the next, prev, first and last pages.',
          },
        },
      },
    ),
    400: standardErrors[400],
    403: standardErrors[403],
    500: standardErrors[500],
  },
};

export function registerListCallbacks(app: Api, deps: AppDeps): void {
  app.get('/callbacks', { schema }, async (request, reply) => {
    const page = Number(request.query.page ?? '1');
    const perPage = request.query.perPage ?? DEFAULT_PER_PAGE;
    const { deliveries, total } = await listDeliveries(deps.store.db, request.organisation.id, {
      status: request.query.status,
      page,
      perPage,
    });
    reply.header('x-total-count', String(total));
    reply.header('link', pagingLinks(deps.config.publicBaseUrl, request.url, page, perPage, total));
    return { callbacks: deliveries };
  });
}
