import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { AppDeps } from '../../../deps.js';
import { esimActivity, findListedEsim, readEsimPage } from '../../../domain/esims/esim-reads.js';
import type { Esim } from '../../../domain/esims/esim.js';
import type { Api } from '../../api.js';
import { pagingHeaders, pagingQuery, requestedPage, setPagingHeaders } from '../../paging.js';
import type { Page, PageKeys } from '../../paging.js';
import { esimListFilter, readFilteredPage } from './list-filter.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { present, presented } from '../../versions/presenter.js';
import { EsimLiveFields, EsimSchema } from './esim-view.js';

const DEFAULT_PER_PAGE = 50;
const MAX_PER_PAGE = 500;

/** An item of v2.1's list: the profile, its live fields, the number and when it was issued. */
export const EsimListItem = Type.Composite([
  EsimSchema,
  EsimLiveFields,
  Type.Object({
    msisdn: Type.String({ description: 'Phone number (E.164 digits); empty when none.' }),
    createDate: Type.String({ description: 'When the eSIM was issued, RFC 3339 UTC.' }),
  }),
]);

/** v2.1's answer: a page of eSIMs and its counters (versions/presenters/esims.ts). */
export const EsimListAnswer = Type.Object(
  {
    esims: Type.Array(EsimListItem),
    pageCount: Type.Integer({ description: 'Number of pages at this perPage.' }),
    rows: Type.Integer({ description: 'Number of eSIMs in total.' }),
    pageSize: Type.Integer({ description: 'perPage used.' }),
  },
  { headers: pagingHeaders('Number of eSIMs over all pages.') },
);

const schema = {
  tags: ['eSIMs'],
  operationId: 'listEsims',
  summary: 'List the eSIMs of the organisation',
  description:
    'A page of the organisation eSIMs in the order they were issued. Paging metadata is in the ' +
    'body (pageCount, rows, pageSize) and, as for the catalogue, in the X-Total-Count and Link headers.',
  security: apiKeySecurity,
  querystring: Type.Object({
    ...pagingQuery({
      items: 'eSIMs',
      defaultPerPage: DEFAULT_PER_PAGE,
      maxPerPage: MAX_PER_PAGE,
      pastEnd: 'is empty',
    }),
    direction: Type.Optional(
      Type.Unsafe<'asc' | 'desc'>({
        type: 'string',
        enum: ['asc', 'desc'],
        default: 'asc',
        description: 'asc: oldest first (default); desc: newest first.',
      }),
    ),
  }),
  response: {
    200: presented(EsimListAnswer),
    400: standardErrors[400],
    403: standardErrors[403],
    500: standardErrors[500],
  },
};

export function registerListEsims(app: Api, deps: AppDeps): void {
  app.get('/esims', { schema }, async (request, reply) => {
    const orgId = request.organisation.id;
    const page = requestedPage(request.query, DEFAULT_PER_PAGE);
    const { perPage } = page;
    const direction = request.query.direction ?? 'asc';
    const filter = esimListFilter(request);
    if (filter?.by === 'iccid') {
      // One eSIM at most: a deleted one has left the list, and another organisation's is not in it.
      const row = await findListedEsim(deps.store.db, orgId, filter.iccid);
      const found = row === undefined ? [] : [row];
      return answer(page.offset === 0 ? found : [], found.length, page, reply);
    }
    if (filter !== undefined) {
      const found = await readFilteredPage(
        deps.store.db,
        deps.store.dialect,
        orgId,
        filter,
        page,
        direction,
      );
      return answer(found.rows, found.total, page, reply, found.keys);
    }
    // The page and its total are of one moment, however many eSIMs are issued or deleted meanwhile.
    const { rows, total } = await readEsimPage(deps.store.db, orgId, {
      offset: page.offset,
      limit: perPage,
      direction,
    });
    return answer(rows, total, page, reply);
  });

  async function answer(
    rows: Esim[],
    total: number,
    page: Page,
    reply: FastifyReply,
    keys?: PageKeys,
  ) {
    const { perPage } = page;
    setPagingHeaders(reply, deps.config.publicBaseUrl, reply.request.url, page, total, keys);
    const activity = await esimActivity(
      deps.store.db,
      rows.map((r) => r.iccid),
    );
    return present(reply.request, 'listEsims', {
      esims: rows.map((esim) => ({ esim, activity: activity.get(esim.iccid) })),
      total,
      perPage,
    });
  }
}
