import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { countEsims, listEsims } from '../../../store/repositories/esim-repository.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { pagingLinks } from '../catalogue/link-header.js';
import { EsimSchema, esimBody } from './esim-view.js';

const DEFAULT_PER_PAGE = 50;
const MAX_PER_PAGE = 500;

const schema = {
  tags: ['eSIMs'],
  summary: 'List the eSIMs of the organisation',
  description:
    'A page of the organisation eSIMs in the order they were issued. Paging metadata is in the ' +
    'body (pageCount, rows, pageSize) and, as for the catalogue, in the X-Total-Count and Link headers.',
  security: apiKeySecurity,
  querystring: Type.Object({
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
        description: `eSIMs per page, 1 to ${MAX_PER_PAGE} (default ${DEFAULT_PER_PAGE}).`,
      }),
    ),
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
    200: Type.Object({
      esims: Type.Array(
        Type.Composite([
          EsimSchema,
          Type.Object({
            msisdn: Type.String({ description: 'Phone number (E.164 digits); empty when none.' }),
            createDate: Type.String({ description: 'When the eSIM was issued, RFC 3339 UTC.' }),
          }),
        ]),
      ),
      pageCount: Type.Integer({ description: 'Number of pages at this perPage.' }),
      rows: Type.Integer({ description: 'Number of eSIMs in total.' }),
      pageSize: Type.Integer({ description: 'perPage used.' }),
    }),
    400: standardErrors[400],
    403: standardErrors[403],
    500: standardErrors[500],
  },
};

export function registerListEsims(app: Api, deps: AppDeps): void {
  app.get('/esims', { schema }, async (request, reply) => {
    const orgId = request.organisation.id;
    const page = Number(request.query.page ?? '1');
    const perPage = request.query.perPage ?? DEFAULT_PER_PAGE;
    const direction = request.query.direction ?? 'asc';
    const [total, rows] = await Promise.all([
      countEsims(deps.store.db, orgId),
      listEsims(deps.store.db, orgId, { offset: (page - 1) * perPage, limit: perPage, direction }),
    ]);
    reply.header('x-total-count', String(total));
    reply.header('link', pagingLinks(deps.config.publicBaseUrl, request.url, page, perPage, total));
    return {
      esims: rows.map((r) => ({
        ...esimBody(r),
        msisdn: r.msisdn ?? '',
        createDate: r.created_at,
      })),
      pageCount: Math.max(1, Math.ceil(total / perPage)),
      rows: total,
      pageSize: perPage,
    };
  });
}
