import { Type } from '@sinclair/typebox';
import { listDeliveries } from '../../../domain/callbacks/deliveries.js';
import { MAX_SKIPPED } from '../../../store/repositories/callback-repository.js';
import type { AppDeps } from '../../../deps.js';
import type { Api } from '../../api.js';
import { pagingHeaders, pagingQuery, requestedPage, setPagingHeaders } from '../../paging.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { DeliverySummarySchema, StatusEnum, TAG } from './delivery-schema.js';

const DEFAULT_PER_PAGE = 50;
const MAX_PER_PAGE = 500;
/** A delivery's key: its position in the order deliveries were written. */
const KEY = '^[1-9][0-9]{0,17}$';

const schema = {
  tags: [TAG],
  operationId: 'listCallbacks',
  summary: 'List usage callback deliveries',
  description:
    'The organisation usage callbacks, newest first, with their delivery state. Paging metadata ' +
    'is in the X-Total-Count and Link headers; its next and prev links carry the key of the page ' +
    'beside them (before, after), so following them reads every delivery once while new ones ' +
    'arrive. With a status filter, a page by number more than ' +
    `${MAX_SKIPPED} deliveries from both the first and the last page is a 400: follow the links.`,
  'x-extension': true,
  security: apiKeySecurity,
  querystring: Type.Object({
    status: Type.Optional(StatusEnum),
    before: Type.Optional(
      Type.String({
        pattern: KEY,
        description: 'The deliveries older than this key (set by the next link).',
      }),
    ),
    after: Type.Optional(
      Type.String({
        pattern: KEY,
        description: 'The deliveries newer than this key (set by the prev link).',
      }),
    ),
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
    const { status, before, after } = request.query;
    const found = await listDeliveries(deps.store.db, request.organisation.id, {
      status,
      page: page.page,
      perPage: page.perPage,
      ...(before === undefined ? {} : { before }),
      ...(after === undefined ? {} : { after }),
    });
    const { deliveries, total, first, last } = found;
    setPagingHeaders(reply, deps.config.publicBaseUrl, request.url, page, total, {
      names: ['before', 'after'],
      ...(last === undefined ? {} : { next: { before: last } }),
      ...(first === undefined ? {} : { prev: { after: first } }),
      // A page read by key that is not full is the end of the list in that direction.
      noNext: before !== undefined && deliveries.length < page.perPage,
      noPrev: after !== undefined && deliveries.length < page.perPage,
    });
    return { callbacks: deliveries };
  });
}
