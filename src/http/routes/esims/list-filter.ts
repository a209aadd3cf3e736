import type { FastifyRequest } from 'fastify';
import { badRequest } from '../../../domain/errors/error-codes.js';
import type { AppDeps } from '../../../deps.js';
import {
  FILTER_WINDOW,
  FilteredPageTooDeep,
  readFilteredEsims,
} from '../../../domain/esims/esim-reads.js';
import type {
  EsimFilter,
  EsimFilterColumn,
  FilteredPage,
  ListEnd,
  ListPosition,
  ListStart,
} from '../../../domain/esims/esim-reads.js';
import { indexedText, storedBounds, textCondition, timeRange } from '../../filters.js';
import { lastPage, requestedKey } from '../../paging.js';
import type { Page, PageKeys } from '../../paging.js';
import { can } from '../../versions/capabilities.js';

// `filterBy` and `filter` of GET /esims on the versions with filter operators (v2.2 and later),
// the live service's five fields. The ICCID is matched whole through the primary key. The others
// are read through an index of esim_filters each (026-esim-filters): customerRef and lastAction
// as text (eq:<text> whole, a bare text as a prefix, `*` as any run of characters), actionDate
// and assignedDate as times with one operator (eq, lt, lte, gt, gte). The pages of those lists
// carry keys in their Link header (after, before): the place of their neighbouring row, or an end
// of the list (after=start, before=end) for an empty page past it, which has no such row. Their
// last link is before=end, the last page read back from the end by key (a page number there
// would skip through the index); links by key carry no page number, and a key beside a page
// other than 1 is a 400.

/** The fields of the live spec's filterBy. */
export const ESIM_FILTER_FIELDS = [
  'iccid',
  'customerRef',
  'lastAction',
  'actionDate',
  'assignedDate',
] as const;
type Field = (typeof ESIM_FILTER_FIELDS)[number];

const FIELDS = ESIM_FILTER_FIELDS.join(', ');

const COLUMNS: Readonly<Record<Exclude<Field, 'iccid'>, EsimFilterColumn>> = {
  customerRef: 'customer_ref',
  lastAction: 'last_action',
  actionDate: 'action_date',
  assignedDate: 'assigned_date',
};

const TIMES: ReadonlySet<Field> = new Set<Field>(['actionDate', 'assignedDate']);

export type EsimListFilter =
  | { readonly by: 'iccid'; readonly iccid: string }
  | {
      readonly by: 'index';
      readonly filter: EsimFilter;
      /** A time range that holds nothing: the list is empty. */
      readonly empty: boolean;
      readonly after?: ListPosition | ListStart;
      readonly before?: ListPosition | ListEnd;
    };

interface FilterQuery {
  readonly page?: string;
  readonly filterBy?: string;
  readonly filter?: string;
  readonly after?: string;
  readonly before?: string;
}

/** The list's filter; undefined when the version or the request has none. */
export function esimListFilter(request: FastifyRequest): EsimListFilter | undefined {
  if (!can(request, 'filterOperators')) return undefined;
  const query = request.query as FilterQuery;
  const { filterBy, filter } = query;
  const keyed = query.after !== undefined || query.before !== undefined;
  if (filterBy === undefined && filter === undefined) {
    if (keyed) throw keyWithoutFilter();
    return undefined;
  }
  if (filterBy === undefined) {
    throw badRequest(`query parameter filter needs filterBy, one of ${FIELDS}`);
  }
  if (!(ESIM_FILTER_FIELDS as readonly string[]).includes(filterBy)) {
    throw badRequest(
      `query parameter filterBy: unknown field "${filterBy.slice(0, 40)}"; one of ${FIELDS}`,
    );
  }
  const field = filterBy as Field;
  if (filter === undefined || filter === '') {
    throw badRequest(
      `query parameter filter is required with filterBy (filterBy=${field}&filter=${EXAMPLES[field]})`,
    );
  }
  if (field === 'iccid') {
    if (keyed) throw keyWithoutFilter();
    const { value } = textCondition('filter', filter);
    if (/[*%]/.test(value)) {
      throw badRequest(
        'query parameter filter: an ICCID is matched whole; wildcards are not served',
      );
    }
    return { by: 'iccid', iccid: value };
  }
  const column = COLUMNS[field];
  let range: Omit<EsimFilter, 'column'>;
  let empty = false;
  if (TIMES.has(field)) {
    const bounds = storedBounds(timeRange('filter', [filter]));
    range = {
      ...(bounds.from === undefined ? {} : { from: bounds.from }),
      ...(bounds.to === undefined ? {} : { to: bounds.to }),
    };
    empty = bounds.empty;
  } else {
    range = indexedText('filter', filter);
  }
  requestedKey(query, ['after', 'before']);
  return {
    by: 'index',
    filter: { column, ...range },
    empty,
    ...(query.after === undefined ? {} : { after: parseKey('after', query.after, 'start') }),
    ...(query.before === undefined ? {} : { before: parseKey('before', query.before, 'end') }),
  };
}

const EXAMPLES: Readonly<Record<Field, string>> = {
  iccid: '<ICCID>',
  customerRef: 'eq:<reference>',
  lastAction: 'eq:Bundle Applied',
  actionDate: 'gte:2024-01-01',
  assignedDate: 'gte:2024-01-01',
};

function keyWithoutFilter() {
  return badRequest(
    'query parameters after and before page a list filtered by customerRef, lastAction, actionDate or assignedDate (its Link header sets them)',
  );
}

/**
 * A key of a filtered list as its Link header writes it: `<iccid>,<issue time>,<value>`, or the
 * end it names.
 */
export function listKey(position: ListPosition | ListStart | ListEnd): string {
  if (typeof position === 'string') return position;
  return `${position.iccid},${position.createdAt},${position.value}`;
}

const KEY = /^(\d{19}),([^,]{1,40}),([\s\S]*)$/;

function parseKey<End extends ListStart | ListEnd>(
  name: string,
  raw: string,
  end: End,
): ListPosition | End {
  if (raw === end) return end;
  const m = KEY.exec(raw);
  if (m === null) {
    throw badRequest(
      `query parameter ${name}: not a key of this list; follow the links of the Link header`,
    );
  }
  return { iccid: m[1] ?? '', createdAt: m[2] ?? '', value: m[3] ?? '' };
}

/**
 * The page of a list filtered through esim_filters, and the links of its Link header: after= (the
 * next link) and before= (the prev link) where a neighbour exists, before=end (the last). A page
 * by number past the end links back to the last page by number, exact there. A page by number
 * past the first FILTER_WINDOW entries the filter reads is a 400 naming the links.
 */
export async function readFilteredPage(
  db: AppDeps['store']['db'],
  dialect: AppDeps['store']['dialect'],
  organisationId: string,
  filter: Extract<EsimListFilter, { by: 'index' }>,
  page: Page,
  direction: 'asc' | 'desc',
): Promise<FilteredPage & { keys: PageKeys }> {
  let found: FilteredPage = { rows: [], total: 0, earlier: page.offset > 0 };
  if (!filter.empty) {
    try {
      const request = {
        dialect,
        organisationId,
        filter: filter.filter,
        direction,
        perPage: page.perPage,
        offset: page.offset,
        ...(filter.after === undefined ? {} : { after: filter.after }),
        ...(filter.before === undefined ? {} : { before: filter.before }),
      };
      found = await readFilteredEsims(db, request);
    } catch (error) {
      if (!(error instanceof FilteredPageTooDeep)) throw error;
      throw badRequest(
        `query parameter page: pages by number reach the first ${FILTER_WINDOW} eSIMs a filter reads; follow the next links of the Link header (after=) past them`,
      );
    }
  }
  const { next, prev } = found;
  const byNumber = { page: Math.min(page.page - 1, lastPage(found.total, page.perPage)) };
  return {
    ...found,
    keys: {
      names: ['after', 'before'],
      ...(next === undefined ? {} : { next: { key: { after: listKey(next) } } }),
      ...(prev !== undefined
        ? { prev: { key: { before: listKey(prev) } } }
        : found.earlier
          ? { prev: byNumber }
          : {}),
      last: { key: { before: 'end' } },
    },
  };
}
