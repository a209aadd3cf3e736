import { sql } from 'kysely';
import type { Executor } from '../database.js';
import type { Esim } from '../domain-types.js';
import { listEsimsByIccid } from './esim-repository.js';

// GET /esims filtered by customerRef, lastAction, actionDate or assignedDate (v2.2 and later):
// the organisation's eSIMs whose value lies in a range of one column of esim_filters
// (026-esim-filters), in the order of its index (organisation_id, value, created_at, iccid; only
// listed eSIMs with a value): by value, then in the order the eSIMs were issued. A filtered list
// has no row numbers, so a page is read by key (the place of the row before it) or, by number,
// by skipping through the index; nothing reads more than WINDOW index entries:
// - A range every value of which matches (a whole value, a prefix, a time range) reads what it
//   answers: the page and one entry beyond it. Its total counts the range up to WINDOW.
// - A pattern with `*` before its end is checked on each value of the range of its head (the
//   text before the first `*`; all of the organisation's values when there is none). A page reads
//   up to WINDOW entries from its key: it holds the matches found, and its next link carries on
//   from the last entry read, so a rare match may take more than one page. Its total counts the
//   matches among the first WINDOW entries of the range.
// - A page by number must start within the first WINDOW entries (the next links go on past it).

/** How many index entries a filtered page or its total may read. */
export const FILTER_WINDOW = 10_000;

/** Entries read at a time while looking for the matches of a pattern. */
const CHUNK = 1_000;

/** A column of esim_filters, each read through an index of its own. */
export type EsimFilterColumn = 'customer_ref' | 'last_action' | 'action_date' | 'assigned_date';

/** The index that reads each column. */
export const ESIM_FILTER_INDEX: Readonly<Record<EsimFilterColumn, string>> = {
  customer_ref: 'esim_filters_customer_ref',
  last_action: 'esim_filters_last_action',
  action_date: 'esim_filters_action_date',
  assigned_date: 'esim_filters_assigned_date',
};

/**
 * The ends of a filtered list as keys, in list order: the page after its start is its first,
 * the page before its end its last. An empty page past an end has no row beside it to name.
 */
export type ListStart = 'start';
export type ListEnd = 'end';

/** A place in a filtered list: a value and the eSIM's place among those sharing it. */
export interface ListPosition {
  readonly value: string;
  /** When the eSIM was issued (RFC 3339 UTC, as stored). */
  readonly createdAt: string;
  readonly iccid: string;
}

/**
 * The values a filter selects: a range of its column (strings compared byte-wise), and a check
 * on each value in it when not every one matches.
 */
export interface EsimFilter {
  readonly column: EsimFilterColumn;
  /** At least (inclusive). */
  readonly from?: string;
  /** At most (inclusive). */
  readonly to?: string;
  /** Below (exclusive). */
  readonly below?: string;
  /** Checked on each value of the range; absent: every value in it matches. */
  readonly matches?: (value: string) => boolean;
}

export interface FilteredPageRequest {
  readonly organisationId: string;
  readonly filter: EsimFilter;
  readonly direction: 'asc' | 'desc';
  readonly perPage: number;
  /** Matches before a page by number: (page - 1) * perPage. Unused with a key. */
  readonly offset: number;
  /** The page after this place (a next link), or before it (a prev link); or from an end. */
  readonly after?: ListPosition | ListStart;
  readonly before?: ListPosition | ListEnd;
  /** Index entries a page or its total may read (FILTER_WINDOW unless told). */
  readonly window?: number;
}

export interface FilteredPage {
  /** In list order. */
  readonly rows: Esim[];
  /** The matches among the first FILTER_WINDOW entries of the range: all of them when fewer. */
  readonly total: number;
  /** Where the page after this one starts (after it); absent when nothing is after. */
  readonly next?: ListPosition | ListStart;
  /** Where the page before this one ends (before it), when known. */
  readonly prev?: ListPosition | ListEnd;
  /** Whether anything may be before the page. */
  readonly earlier: boolean;
}

/** A page by number that starts beyond the first FILTER_WINDOW entries of its range. */
export class FilteredPageTooDeep extends Error {
  constructor(readonly offset: number) {
    super(`a filtered page by number skips ${offset} rows`);
  }
}

type Direction = 'asc' | 'desc';

const reverse = (direction: Direction): Direction => (direction === 'asc' ? 'desc' : 'asc');

/** Entries of the range in `direction`, strictly beyond `start` when given, index-only. */
async function readEntries(
  db: Executor,
  organisationId: string,
  filter: EsimFilter,
  read: { direction: Direction; start?: ListPosition; offset?: number; limit: number },
): Promise<ListPosition[]> {
  const { column } = filter;
  const { direction } = read;
  // The indexes hold only listed eSIMs with a value: the query spells both conditions out.
  // A key inside the range replaces the range's bound on its side: SQLite starts an index range
  // at one bound a side, and must start at the key, not at the range's end.
  const start =
    read.start !== undefined && inside(read.start.value, filter, direction)
      ? read.start
      : undefined;
  let query = db
    .selectFrom('esim_filters')
    .select((eb) => [eb.ref(column).as('value'), 'created_at', 'iccid'])
    .where('organisation_id', '=', organisationId)
    .where('listed', '=', sql.lit(1))
    .where(column, 'is not', null);
  if (filter.from !== undefined && (start === undefined || direction === 'desc')) {
    query = query.where(column, '>=', filter.from);
  }
  if (start === undefined || direction === 'asc') {
    if (filter.to !== undefined) query = query.where(column, '<=', filter.to);
    if (filter.below !== undefined) query = query.where(column, '<', filter.below);
  }
  if (start !== undefined) {
    query = query.where((eb) =>
      eb(
        eb.refTuple(column, 'created_at', 'iccid'),
        direction === 'asc' ? '>' : '<',
        eb.tuple(start.value, start.createdAt, start.iccid),
      ),
    );
  }
  const rows = await query
    .orderBy('organisation_id', direction)
    .orderBy(column, direction)
    .orderBy('created_at', direction)
    .orderBy('iccid', direction)
    .limit(read.limit)
    .$if((read.offset ?? 0) > 0, (q) => q.offset(read.offset ?? 0))
    .execute();
  return rows.map((r) => ({ value: String(r.value), createdAt: r.created_at, iccid: r.iccid }));
}

/**
 * Whether a key's value is not before the range in the reading direction (a key before it
 * reads the whole range): at or above its lower bound reading up, at or below its upper bound
 * reading down.
 */
function inside(value: string, filter: EsimFilter, direction: Direction): boolean {
  if (direction === 'asc') return compareCodePoints(value, filter.from ?? '') >= 0;
  if (filter.to !== undefined && compareCodePoints(value, filter.to) > 0) return false;
  return filter.below === undefined || compareCodePoints(value, filter.below) < 0;
}

/** Byte-wise order of UTF-8 strings, as both databases compare these columns. */
function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) {
    const d = (x[i]?.codePointAt(0) ?? 0) - (y[i]?.codePointAt(0) ?? 0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** How many entries the range holds, counting up to `limit`, through the index alone. */
async function countEntries(
  db: Executor,
  organisationId: string,
  filter: EsimFilter,
  limit: number,
): Promise<number> {
  const { column } = filter;
  let range = db
    .selectFrom('esim_filters')
    .select(sql<number>`1`.as('one'))
    .where('organisation_id', '=', organisationId)
    .where('listed', '=', sql.lit(1))
    .where(column, 'is not', null);
  if (filter.from !== undefined) range = range.where(column, '>=', filter.from);
  if (filter.to !== undefined) range = range.where(column, '<=', filter.to);
  if (filter.below !== undefined) range = range.where(column, '<', filter.below);
  // In the index's order, so that a planner reads that index whatever its statistics say.
  const ordered = range.orderBy('organisation_id').orderBy(column).limit(limit);
  const row = await db
    .selectFrom(ordered.as('w'))
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

interface Scan {
  /** Up to `want` matches, in reading order. */
  readonly found: ListPosition[];
  /** Where to carry on when more may follow: after the last match or the last entry read. */
  readonly resume?: ListPosition;
}

/**
 * Up to `want` matches in `direction` beyond `start` (from the range's end that way when there
 * is none): the range read one entry past the page
 * when every value matches, else up to FILTER_WINDOW entries, a chunk at a time.
 */
async function scan(
  db: Executor,
  organisationId: string,
  filter: EsimFilter,
  read: { direction: Direction; start: ListPosition | undefined; want: number; budget: number },
): Promise<Scan> {
  const { direction, want, budget } = read;
  const { matches } = filter;
  const found: ListPosition[] = [];
  let cursor = read.start;
  let seen = 0;
  for (;;) {
    const limit = matches === undefined ? want + 1 : Math.min(CHUNK, budget - seen);
    const entries = await readEntries(db, organisationId, filter, {
      direction,
      start: cursor,
      limit,
    });
    seen += entries.length;
    for (const entry of entries) {
      if (matches !== undefined && !matches(entry.value)) continue;
      if (found.length === want) return { found, ...lastOf(found) };
      found.push(entry);
    }
    const last = entries.at(-1);
    if (entries.length < limit || last === undefined) return { found };
    if (seen >= budget) return { found, resume: last };
    cursor = last;
  }
}

const lastOf = (found: readonly ListPosition[]): { resume?: ListPosition } => {
  const last = found.at(-1);
  return last === undefined ? {} : { resume: last };
};

/** The window a total counts: the first FILTER_WINDOW entries of the range, in list order. */
interface Window {
  readonly total: number;
  /** The range holds more entries than the window. */
  readonly more: boolean;
  /** With a pattern: its matches in the window, and the window's last entry. */
  readonly matched?: ListPosition[];
  readonly end?: ListPosition;
}

async function readWindow(
  db: Executor,
  organisationId: string,
  filter: EsimFilter,
  direction: Direction,
  size: number,
): Promise<Window> {
  const { matches } = filter;
  if (matches === undefined) {
    const n = await countEntries(db, organisationId, filter, size + 1);
    return { total: Math.min(n, size), more: n > size };
  }
  const entries = await readEntries(db, organisationId, filter, { direction, limit: size + 1 });
  const window = entries.slice(0, size);
  const matched = window.filter((e) => matches(e.value));
  const end = window.at(-1);
  return {
    total: matched.length,
    more: entries.length > size,
    matched,
    ...(end === undefined ? {} : { end }),
  };
}

/** A page by number: `offset` matches skipped from the start of the list. */
async function pageByNumber(
  db: Executor,
  request: FilteredPageRequest,
  window: Window,
): Promise<Scan> {
  const { organisationId, filter, direction, perPage, offset } = request;
  // The matches the window holds: a page may start among them or, when the range goes on past
  // the window, right after them.
  const within = window.matched?.length ?? window.total;
  if (offset > within && window.more) throw new FilteredPageTooDeep(offset);
  if (offset > within || (offset === within && !window.more)) return { found: [] };
  if (window.matched !== undefined) {
    const found = window.matched.slice(offset, offset + perPage);
    if (window.matched.length > offset + perPage) return { found, ...lastOf(found) };
    // The page reaches the window's end: a next page carries on from its last entry.
    return window.more && window.end !== undefined ? { found, resume: window.end } : { found };
  }
  const entries = await readEntries(db, organisationId, filter, {
    direction,
    offset,
    limit: perPage + 1,
  });
  const found = entries.slice(0, perPage);
  return entries.length > perPage ? { found, ...lastOf(found) } : { found };
}

/**
 * A page of the organisation's eSIMs that a filter selects, with its total and the places its
 * neighbouring pages start from. A page by number beyond the first FILTER_WINDOW entries of the
 * range throws FilteredPageTooDeep.
 */
export async function listFilteredEsims(
  db: Executor,
  request: FilteredPageRequest,
): Promise<FilteredPage> {
  const { organisationId, filter, direction, perPage, after, before } = request;
  const budget = request.window ?? FILTER_WINDOW;
  const window = await readWindow(db, organisationId, filter, direction, budget);
  let found: ListPosition[];
  let earlier: boolean;
  let next: ListPosition | ListStart | undefined;
  let prev: ListPosition | ListEnd | undefined;
  if (before !== undefined) {
    const back = await scan(db, organisationId, filter, {
      direction: reverse(direction),
      start: before === 'end' ? undefined : before,
      want: perPage,
      budget,
    });
    found = [...back.found].reverse();
    prev = back.resume;
    // An empty page (a pattern's window read no match): the values between where the scan stopped
    // and the key asked for do not match, so the next page may start from where it stopped; one
    // that read back to the start of the list, from the start (after the key asked for would
    // leave out the key's own row). Nothing follows the end.
    next = before === 'end' ? undefined : (found.at(-1) ?? back.resume ?? 'start');
    earlier = prev !== undefined;
  } else {
    const ahead =
      after !== undefined
        ? await scan(db, organisationId, filter, {
            direction,
            start: after === 'start' ? undefined : after,
            want: perPage,
            budget,
          })
        : await pageByNumber(db, request, window);
    found = ahead.found;
    next = ahead.resume;
    earlier = after === undefined ? request.offset > 0 : after !== 'start';
    // An empty page: the values up to where the scan stopped do not match, so the page before
    // may end there; one that read on to the end of the list, at the end (before the key asked
    // for would leave out the key's own row, and a page number is no place in a list read by
    // key). A page by number past the end keeps to numbers: its total is exact there, since
    // pageByNumber serves no page past a window that holds more.
    const end: ListEnd | undefined = after === undefined ? undefined : 'end';
    prev = earlier ? (found[0] ?? ahead.resume ?? end) : undefined;
  }
  const rows = await listEsimsByIccid(
    db,
    organisationId,
    found.map((e) => e.iccid),
  );
  const byIccid = new Map(rows.map((r) => [r.iccid, r]));
  return {
    rows: found.flatMap((e) => byIccid.get(e.iccid) ?? []),
    total: window.total,
    ...(next === undefined ? {} : { next }),
    ...(prev === undefined ? {} : { prev }),
    earlier,
  };
}

/**
 * Writes esim_filters again from the eSIMs, their history and assignments (after a snapshot is
 * restored: the triggers saw its rows arrive in table order, not as they were written).
 */
export async function writeEsimFilters(db: Executor): Promise<void> {
  await db.deleteFrom('esim_filters').execute();
  await sql`
    insert into esim_filters (iccid, organisation_id, created_at, listed, customer_ref,
      last_action, action_date, action_id, assigned_date)
    select e.iccid, e.organisation_id, e.created_at, case when e.seq is null then 0 else 1 end,
      nullif(e.customer_ref, ''),
      (select h.name from esim_history h where h.iccid = e.iccid order by h.id desc limit 1),
      (select h.created_at from esim_history h where h.iccid = e.iccid order by h.id desc limit 1),
      (select max(h.id) from esim_history h where h.iccid = e.iccid),
      (select min(a.created_at) from assignments a where a.iccid = e.iccid)
    from esims e`.execute(db);
}
