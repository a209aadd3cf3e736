import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import type { DialectName, Executor } from '../database.js';
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
//   text before the first `*`; all of the organisation's values when there is none), by the
//   database (GLOB on SQLite, LIKE on PostgreSQL), on an index range bounded by a LIMIT: no row
//   comes back that does not match. A page reads up to WINDOW entries from its key: it holds the
//   matches found, and its next link carries on from the last entry read, so a rare match may
//   take more than one page. Its total counts the matches among the first WINDOW entries of the
//   range.
// - A page by number must start within the first WINDOW entries (the next links go on past it).

/** How many index entries a filtered page or its total may read. */
export const FILTER_WINDOW = 10_000;

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
  /**
   * Checked on each value of the range, whole: `*` matches any run of characters, every other
   * character itself (case-sensitive). Absent: every value in the range matches.
   */
  readonly pattern?: string;
}

export interface FilteredPageRequest {
  readonly dialect: DialectName;
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

/** Where a read of the range starts and which way it goes, and how many entries it reads. */
interface Read {
  readonly direction: Direction;
  /** Strictly beyond this entry; from the range's end that way when absent. */
  readonly start?: ListPosition | undefined;
  readonly limit: number;
}

/** The statement reading entries of the range in `direction`, index-only. */
function entriesQuery(db: Executor, organisationId: string, filter: EsimFilter, read: Read) {
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
  return query
    .orderBy('organisation_id', direction)
    .orderBy(column, direction)
    .orderBy('created_at', direction)
    .orderBy('iccid', direction)
    .limit(read.limit);
}

const positionOf = (r: { value: unknown; created_at: string; iccid: string }): ListPosition => ({
  value: String(r.value),
  createdAt: r.created_at,
  iccid: r.iccid,
});

/** Entries of the range (`offset` of them skipped first), index-only. */
async function readEntries(
  db: Executor,
  organisationId: string,
  filter: EsimFilter,
  read: Read & { offset?: number },
): Promise<ListPosition[]> {
  const rows = await entriesQuery(db, organisationId, filter, read)
    .$if((read.offset ?? 0) > 0, (q) => q.offset(read.offset ?? 0))
    .execute();
  return rows.map(positionOf);
}

/**
 * The condition that a value (`w.value`) matches `pattern` whole. SQLite: GLOB, whose `*` is
 * ours and whose other specials (`?`, `[`) are written as one-character classes. PostgreSQL:
 * LIKE, `*` as `%`, and `%`, `_` and its escape character `\` escaped. Both compare characters
 * exactly (GLOB and LIKE are case-sensitive there).
 */
function matchesPattern(dialect: DialectName, pattern: string): RawBuilder<boolean> {
  if (dialect === 'sqlite') {
    return sql<boolean>`w.value glob ${pattern.replace(/[?[]/g, (c) => `[${c}]`)}`;
  }
  const like = pattern.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');
  return sql<boolean>`w.value like ${like}`;
}

/**
 * The matches of `pattern` among the first `budget` entries of a read (`offset` matches skipped,
 * `limit` returned), in its order: the database checks each entry and stops once it has them.
 * The rows come in the subquery's index order (SQLite runs it as a co-routine, PostgreSQL scans
 * it in order); an ORDER BY outside would have SQLite sort the whole window first.
 */
async function readMatches(
  db: Executor,
  dialect: DialectName,
  organisationId: string,
  filter: EsimFilter & { pattern: string },
  read: Omit<Read, 'limit'> & { budget: number; offset?: number; limit: number },
): Promise<ListPosition[]> {
  const { budget, ...rest } = read;
  const entries = entriesQuery(db, organisationId, filter, { ...rest, limit: budget });
  const rows = await db
    .selectFrom(entries.as('w'))
    .select(['w.value', 'w.created_at', 'w.iccid'])
    .where(matchesPattern(dialect, filter.pattern))
    .limit(read.limit)
    .$if((read.offset ?? 0) > 0, (q) => q.offset(read.offset ?? 0))
    .execute();
  return rows.map(positionOf);
}

/** The entry `index` places (0: the first) into a read, if the range holds it. */
async function entryAt(
  db: Executor,
  organisationId: string,
  filter: EsimFilter,
  read: Omit<Read, 'limit'>,
  index: number,
): Promise<ListPosition | undefined> {
  const [entry] = await readEntries(db, organisationId, filter, {
    ...read,
    limit: 1,
    offset: index,
  });
  return entry;
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

/** Where a request reads: the organisation, its filter, and the database that checks a pattern. */
interface Source {
  readonly db: Executor;
  readonly dialect: DialectName;
  readonly organisationId: string;
  readonly filter: EsimFilter;
}

/**
 * Up to `want` matches in `direction` beyond `start` (from the range's end that way when there
 * is none): the range read one entry past the page when every value matches, else up to
 * `budget` entries.
 */
async function scan(
  from: Source,
  read: { direction: Direction; start: ListPosition | undefined; want: number; budget: number },
): Promise<Scan> {
  const { db, dialect, organisationId, filter } = from;
  const { direction, start, want, budget } = read;
  const { pattern } = filter;
  const entries =
    pattern === undefined
      ? await readEntries(db, organisationId, filter, { direction, start, limit: want + 1 })
      : await readMatches(
          db,
          dialect,
          organisationId,
          { ...filter, pattern },
          {
            direction,
            start,
            budget,
            limit: want + 1,
          },
        );
  const found = entries.slice(0, want);
  if (entries.length > want) return { found, ...lastOf(found) };
  if (pattern === undefined) return { found };
  // Fewer matches than asked for: where the read stopped, when it stopped at its budget.
  const stop = await entryAt(db, organisationId, filter, { direction, start }, budget - 1);
  return stop === undefined ? { found } : { found, resume: stop };
}

const lastOf = (found: readonly ListPosition[]): { resume?: ListPosition } => {
  const last = found.at(-1);
  return last === undefined ? {} : { resume: last };
};

/** The window a total counts: the first `size` entries of the range, in list order. */
interface Window {
  /** The matches in the window (every entry of it when there is no pattern). */
  readonly total: number;
  readonly size: number;
  /** Whether the range holds more entries than the window, and the window's last entry. */
  readonly end: () => Promise<{ more: boolean; last?: ListPosition }>;
}

async function readWindow(from: Source, direction: Direction, size: number): Promise<Window> {
  const { db, dialect, organisationId, filter } = from;
  const { pattern } = filter;
  // Read only when a page by number needs it (past the window's matches, or reaching its end).
  let end: Promise<{ more: boolean; last?: ListPosition }> | undefined;
  const readEnd = () =>
    (end ??= readEntries(db, organisationId, filter, {
      direction,
      offset: size - 1,
      limit: 2,
    }).then(([last, beyond]) => ({ more: beyond !== undefined, ...(last ? { last } : {}) })));
  if (pattern === undefined) {
    const n = await countEntries(db, organisationId, filter, size + 1);
    return { total: Math.min(n, size), size, end: () => Promise.resolve({ more: n > size }) };
  }
  const row = await db
    .selectFrom(entriesQuery(db, organisationId, filter, { direction, limit: size }).as('w'))
    .where(matchesPattern(dialect, pattern))
    .select((eb) => eb.fn.countAll<number | string>().as('matched'))
    .executeTakeFirst();
  return { total: Number(row?.matched ?? 0), size, end: readEnd };
}

/** A page by number: `offset` matches skipped from the start of the list. */
async function pageByNumber(
  from: Source,
  request: FilteredPageRequest,
  window: Window,
): Promise<Scan> {
  const { db, dialect, organisationId, filter } = from;
  const { direction, perPage, offset } = request;
  // The matches the window holds: a page may start among them or, when the range goes on past
  // the window, right after them.
  const within = window.total;
  if (offset >= within) {
    const { more } = await window.end();
    if (offset > within && more) throw new FilteredPageTooDeep(offset);
    if (offset > within || !more) return { found: [] };
  }
  const { pattern } = filter;
  if (pattern === undefined) {
    const entries = await readEntries(db, organisationId, filter, {
      direction,
      offset,
      limit: perPage + 1,
    });
    const found = entries.slice(0, perPage);
    return entries.length > perPage ? { found, ...lastOf(found) } : { found };
  }
  const entries = await readMatches(
    db,
    dialect,
    organisationId,
    { ...filter, pattern },
    {
      direction,
      budget: window.size,
      offset,
      limit: perPage + 1,
    },
  );
  const found = entries.slice(0, perPage);
  if (entries.length > perPage) return { found, ...lastOf(found) };
  // The page reaches the window's end: a next page carries on from its last entry.
  const { more, last } = await window.end();
  return more && last !== undefined ? { found, resume: last } : { found };
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
  const { dialect, organisationId, filter, direction, perPage, after, before } = request;
  const from: Source = { db, dialect, organisationId, filter };
  const budget = request.window ?? FILTER_WINDOW;
  const window = await readWindow(from, direction, budget);
  let found: ListPosition[];
  let earlier: boolean;
  let next: ListPosition | ListStart | undefined;
  let prev: ListPosition | ListEnd | undefined;
  if (before !== undefined) {
    const back = await scan(from, {
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
        ? await scan(from, {
            direction,
            start: after === 'start' ? undefined : after,
            want: perPage,
            budget,
          })
        : await pageByNumber(from, request, window);
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
