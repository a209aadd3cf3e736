import { Type } from '@sinclair/typebox';
import { listDeliveries } from '../../../domain/callbacks/deliveries.js';
import { MAX_SKIPPED } from '../../../domain/callbacks/deliveries.js';
import type { AppDeps } from '../../../deps.js';
import type { Api } from '../../api.js';
import {
  lastPage,
  pagingHeaders,
  pagingQuery,
  requestedKey,
  requestedPage,
  setPagingHeaders,
} from '../../paging.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { DeliverySummarySchema, StatusEnum, TAG } from './delivery-schema.js';

const DEFAULT_PER_PAGE = 50;
const MAX_PER_PAGE = 500;
/** A delivery's key: its position in the order deliveries were written, from 1. */
const KEY = '^[1-9][0-9]{0,17}$';
/** after= also takes 0, the start: the oldest deliveries. */
const AFTER_KEY = '^(0|[1-9][0-9]{0,17})$';

const schema = {
  tags: [TAG],
  operationId: 'listCallbacks',
  summary: 'List usage callback deliveries',
  description:
    'The organisation usage callbacks, newest first, with their delivery state. Paging metadata ' +
    'is in the X-Total-Count and Link headers; its next and prev links carry the key of the page ' +
    'beside them (before, after) and no page number, so following them reads every delivery once ' +
    'while new ones arrive. There is a next (prev) link when older (newer) deliveries exist; an ' +
    'empty page read by key links back to the deliveries beside its key. before and after ' +
    'together, or either with a page other than 1, are a 400. With a status filter, a page by ' +
    `number more than ${MAX_SKIPPED} deliveries from both the first and the last page is a 400: ` +
    'follow the links.',
  'x-extension': true,
  security: apiKeySecurity,
  querystring: Type.Object({
    status: Type.Optional(StatusEnum),
    before: Type.Optional(
      Type.String({
        pattern: KEY,
        description:
          'The deliveries older than this key (set by the next link): a delivery number within the organisation.',
      }),
    ),
    after: Type.Optional(
      Type.String({
        pattern: AFTER_KEY,
        description:
          'The deliveries newer than this key (set by the prev link): a delivery number within the organisation, or 0 for the oldest deliveries.',
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
    const key = requestedKey(request.query, ['before', 'after']);
    const found = await listDeliveries(deps.store.db, request.organisation.id, {
      status,
      page: page.page,
      perPage: page.perPage,
      ...(before === undefined ? {} : { before }),
      ...(after === undefined ? {} : { after }),
    });
    const { deliveries, total, older, newer } = found;
    // An empty page by number past the end has no key beside it: it links back to the last page.
    const pastEnd = key === undefined && deliveries.length === 0 && page.page > 1;
    const back = { page: Math.min(page.page - 1, lastPage(total, page.perPage)) };
    setPagingHeaders(reply, deps.config.publicBaseUrl, request.url, page, total, {
      names: ['before', 'after'],
      ...(older === undefined ? {} : { next: { key: { before: older } } }),
      ...(newer !== undefined
        ? { prev: { key: { after: newer } } }
        : pastEnd
          ? { prev: back }
          : {}),
    });
    return { callbacks: deliveries };
  });
}
