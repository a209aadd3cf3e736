import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import {
  DEFAULT_PER_PAGE,
  MAX_PER_PAGE,
  catalogueFilter,
} from '../../../domain/catalogue/query.js';
import type { CatalogueQuery } from '../../../domain/catalogue/query.js';
import { REGIONS } from '../../../domain/catalogue/countries.js';
import {
  catalogueVersion,
  listCatalogueJson,
  rowsWithoutJson,
} from '../../../domain/catalogue/catalogue-reads.js';
import type { CatalogueFilter } from '../../../domain/catalogue/catalogue-reads.js';
import type { Api } from '../../api.js';
import { textCondition } from '../../filters.js';
import { can } from '../../versions/capabilities.js';
import { pagingHeaders, pagingQuery, requestedPage, setPagingHeaders } from '../../paging.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { BundleSchema } from './bundle-schema.js';
import { catalogueArray, pageItems } from './page-json.js';
import { createResponseCache } from './response-cache.js';

const Querystring = Type.Object({
  ...pagingQuery({
    items: 'Bundles',
    defaultPerPage: DEFAULT_PER_PAGE,
    maxPerPage: MAX_PER_PAGE,
    pastEnd: 'returns []',
  }),
  direction: Type.Optional(
    Type.Unsafe<'asc' | 'desc'>({
      type: 'string',
      enum: ['asc', 'desc'],
      default: 'asc',
      description: 'Ordering direction. Ties are always broken by name, ascending.',
    }),
  ),
  orderBy: Type.Optional(
    Type.Unsafe<'name' | 'duration' | 'dataAmount' | 'price' | 'bundleName'>({
      type: 'string',
      enum: ['name', 'duration', 'dataAmount', 'price', 'bundleName'],
      default: 'name',
      description:
        'Field to order by (bundleName, the live v2.1 spelling, is name). Unlimited bundles order by their dataAmount of -1.',
    }),
  ),
  description: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'Case-insensitive search on description. `*` matches any run of characters and then the ' +
        'pattern must match the whole description ("eSIM, 1GB*France*"); without `*` the text ' +
        'matches anywhere ("france").',
    }),
  ),
  filter: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'Search on the bundle name (the field filterBy names), as description searches its text: ' +
        'case-insensitive, `*` matches any run and then the whole name ("*_7D_FR_V2"), else the ' +
        'text matches anywhere ("_FR_").',
    }),
  ),
  filterBy: Type.Optional(
    Type.Unsafe<'bundleName'>({
      type: 'string',
      enum: ['bundleName'],
      default: 'bundleName',
      description: 'The field filter searches: bundleName, the only one.',
    }),
  ),
  group: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'Only bundles of this group (exact, case-sensitive), e.g. Standard eSIM Bundles.',
    }),
  ),
  countries: Type.Optional(
    Type.String({
      maxLength: 1000,
      description:
        'Comma-separated ISO 3166-1 alpha-2 codes (e.g. FR,DE): bundles with at least one of them ' +
        'as a base country. An unknown code is a 400.',
    }),
  ),
  region: Type.Optional(
    Type.String({
      maxLength: 50,
      description: `Bundles with a base country in this region, case-insensitive: ${REGIONS.join(', ')}.`,
    }),
  ),
});

/** v2.1's page: a bare array; each version writes its own (versions/presenters/catalogue.ts). */
export const CataloguePageV21 = Type.Array(BundleSchema, {
  description: 'One page of bundles.',
  headers: pagingHeaders('Number of bundles matching the filters, over all pages.'),
});

const schema = {
  tags: ['Catalogue'],
  operationId: 'listCatalogue',
  summary: 'List the bundles the organisation may order',
  description:
    'Only bundles of the organisation groups are listed. Filters combine with AND. The body is a ' +
    'bare array; paging metadata is in the X-Total-Count and Link headers.',
  security: apiKeySecurity,
  querystring: Querystring,
  response: {
    200: CataloguePageV21,
    400: standardErrors[400],
    403: standardErrors[403],
    500: standardErrors[500],
  },
};

/**
 * The catalogue version, read from the database at most once per staleness period: within it, a
 * cached answer is served without asking the database anything.
 */
function versionReader(deps: AppDeps): () => Promise<number> {
  const { clock, config, store } = deps;
  let known = -1;
  let readAt = 0;
  return async () => {
    const now = clock.now().getTime();
    if (known >= 0 && now >= readAt && now - readAt < config.catalogueStalenessMs) return known;
    known = await catalogueVersion(store.db);
    readAt = now;
    return known;
  };
}

/** Upper bound of the bytes the answer cache holds, whatever its entry count. */
const CACHE_MAX_BYTES = 32 * 1024 * 1024;

/**
 * The text filters with the operators of v2.2 and later: `eq:` matches the description (or the
 * name filter) whole (else it is a pattern, as on v2.1) and is the only way group, countries and region match
 * anyway; an order operator (lt, gt, ...) on them is a 400.
 */
function withOperators(query: CatalogueQuery): CatalogueQuery {
  const { description, group, countries, region, filter } = query;
  if (
    description === undefined &&
    group === undefined &&
    countries === undefined &&
    region === undefined &&
    filter === undefined
  ) {
    return query;
  }
  const plain = (field: 'group' | 'countries' | 'region') => {
    const value = query[field];
    return value === undefined ? {} : { [field]: textCondition(field, value).value };
  };
  const text = description === undefined ? undefined : textCondition('description', description);
  const name = filter === undefined ? undefined : textCondition('filter', filter);
  return {
    ...query,
    ...plain('group'),
    ...plain('countries'),
    ...plain('region'),
    ...(text === undefined ? {} : { description: text.value, descriptionExact: text.exact }),
    ...(name === undefined ? {} : { filter: name.value, filterExact: name.exact }),
  };
}

export function registerListCatalogue(app: Api, deps: AppDeps): void {
  const cache = createResponseCache(deps.config.catalogueCacheEntries, CACHE_MAX_BYTES);
  const db = deps.store.db;
  const version = versionReader(deps);
  const cacheOn = deps.config.catalogueCacheEntries > 0;
  const read = async (filter: CatalogueFilter): Promise<{ items: Buffer[]; total: number }> => {
    const { items, total } = await listCatalogueJson(db, deps.store.dialect, filter);
    // The bundles' stored JSON, the bytes the response schema would write (page-json.ts).
    const rows = await rowsWithoutJson(db, items);
    return { items: pageItems(items, rows), total };
  };
  app.get('/catalogue', { schema }, async (request, reply) => {
    const query = request.query;
    const { groups } = request.organisation;
    const filter = catalogueFilter(
      can(request, 'filterOperators') ? withOperators(query) : query,
      groups,
    );
    const page = requestedPage(query, DEFAULT_PER_PAGE);
    // The page in the shape of the version serving the request, joined once from its bundles.
    const presenter = request.routeOptions.config.cataloguePage;
    const { currency } = request.organisation;
    const write = (items: readonly Buffer[], total: number): Buffer =>
      presenter === undefined
        ? catalogueArray(items)
        : presenter.write(items, { rows: total, pageSize: page.perPage }, currency);
    let body: Buffer;
    let total = 0;
    if (filter === undefined) {
      body = write([], 0);
    } else if (!cacheOn) {
      // Without the cache the version would be read for nothing.
      const found = await read(filter);
      body = write(found.items, found.total);
      total = found.total;
    } else {
      const key =
        presenter === undefined
          ? JSON.stringify(filter)
          : `${JSON.stringify(filter)} ${presenter.key(currency)}`;
      const current = await version();
      const cached = cache.get(key, current);
      if (cached !== undefined) {
        ({ body, total } = cached);
      } else {
        const found = await read(filter);
        body = write(found.items, found.total);
        total = found.total;
        cache.set(key, { version: current, body, total });
      }
    }
    return setPagingHeaders(reply, deps.config.publicBaseUrl, request.url, page, total)
      .type('application/json; charset=utf-8')
      .send(body);
  });
}
