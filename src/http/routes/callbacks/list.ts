import { Type } from '@sinclair/typebox';
import { listDeliveries } from '../../../domain/callbacks/deliveries.js';
import type { AppDeps } from '../../../deps.js';
import type { Api } from '../../api.js';
import { pagingHeaders, pagingQuery, requestedPage, setPagingHeaders } from '../../paging.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { DeliverySummarySchema, StatusEnum, TAG } from './delivery-schema.js';

const DEFAULT_PER_PAGE = 50;
const MAX_PER_PAGE = 500;

const schema = {
  tags: [TAG],
  operationId: 'listCallbacks',
  summary: 'List usage callback deliveries',
  description:
    'The organisation usage callbacks, newest first, with their delivery state. Paging metadata ' +
    'is in the X-Total-Count and Link headers.',
  'x-extension': true,
  security: apiKeySecurity,
  querystring: Type.Object({
    status: Type.Optional(StatusEnum),
    ...pagingQuery({
      items: 'Deliveries',
      defaultPerPage: DEFAULT_PER_PAGE,
      maxPerPage: MAX_PER_PAGE,
      pastEnd: 'is empty',
    }),
  }),
  response: {
    200: Type.Object(
      { callbacks: Type.Array(DeliverySummarySchema) },
      {
        headers: pagingHeaders('Deliveries matching the filter, over all pages.'),
      },
    ),
    400: standardErrors[400],
    403: standardErrors[403],
    500: standardErrors[500],
  },
};

export function registerListCallbacks(app: Api, deps: AppDeps): void {
  app.get('/callbacks', { schema }, async (request, reply) => {
    const page = requestedPage(request.query, DEFAULT_PER_PAGE);
    const { deliveries, total } = await listDeliveries(deps.store.db, request.organisation.id, {
      status: request.query.status,
      page: page.page,
      perPage: page.perPage,
    });
    setPagingHeaders(reply, deps.config.publicBaseUrl, request.url, page, total);
    return { callbacks: deliveries };
  });
}
