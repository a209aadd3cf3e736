import { sql } from 'kysely';
import type { Executor } from '../database.js';
import type { CallbackEvent } from '../domain-types.js';
import type { EventStatus } from '../schema.js';
import { callbackEventOf } from './callback-repository.js';
import type { CallbackEventRow } from './callback-repository.js';
import { deletedCount, readListState, seqOfRank } from './deletion-tree.js';

// An organisation's deliveries (GET /callbacks, the CLI, the portal's delivery log), newest
// first, by their number within the organisation (`org_seq`, 023-list-counters): a page by
// number, or the page beside a neighbour's key (before=, after=). Whether a page lies beyond
// either side of the one read is decided by the rows themselves, through the index: the read
// takes one row past the page on the side it reads towards, and one index entry is looked up on
// the other. So a page read by key that ends where the list does has no link onwards, and an
// empty page beside a key links back to the rows beside that key.

/** How far a page by number of a status-filtered list may skip through the index without a key. */
export const MAX_SKIPPED = 10_000;

export interface EventFilter {
  readonly organisationId: string;
  readonly status?: EventStatus;
  readonly limit: number;
  /** Rows before the page, newest first: (page - 1) * limit. Unused with a key. */
  readonly offset: number;
  /** The rows older than this key, a row number (the next page's link carries it). */
  readonly before?: string;
  /** The rows newer than this key (the previous page's link carries it); 0 reads the oldest. */
  readonly after?: string;
}

export interface EventPage {
  /** Newest first. */
  readonly events: CallbackEvent[];
  readonly total: number;
  /**
   * The next page's key (its rows are older than it): the page's oldest row number or, beside an
   * empty page read after a key, the number above the nearest row at or below that key. Absent
   * when no row is older.
   */
  readonly older?: string;
  /**
   * The previous page's key (its rows are newer than it): the page's newest row number or, beside
   * an empty page read before a key, the number below the nearest row at or above that key.
   * Absent when no row is newer.
   */
  readonly newer?: string;
}

/** A status-filtered page by number further than MAX_SKIPPED rows from either end. */
export class PageTooDeep extends Error {
  constructor(readonly skipped: number) {
    super(`page skips ${skipped} rows`);
  }
}

/** A page read by number retries this many times when deletions keep arriving during it. */
const READ_ATTEMPTS = 5;

/** The numbers given out (counter 'callbacks' of 023) and deleted (029-callback-deletions). */
function listState(db: Executor, organisationId: string) {
  return readListState(db, 'callback_deletions', 'callbacks', organisationId);
}

/**
 * How many events the organisation has, in one status or in all: counters of 023-list-counters
 * (all: the row numbers given out less those deleted, 029-callback-deletions).
 */
export async function countEvents(
  db: Executor,
  organisationId: string,
  status?: EventStatus,
): Promise<number> {
  if (status === undefined) {
    const state = await listState(db, organisationId);
    return Math.max(0, state.numbered - state.deleted);
  }
  const row = await db
    .selectFrom('organisation_counts')
    .select('value')
    .where('organisation_id', '=', organisationId)
    .where('name', '=', `callbacks:${status}`)
    .executeTakeFirst();
  return row === undefined ? 0 : Math.max(0, Number(row.value));
}

/** The rows of a page, newest first, and whether more lie beyond it, when the read tells. */
interface Read {
  readonly rows: CallbackEventRow[];
  readonly older?: boolean;
  readonly newer?: boolean;
}

/**
 * A page of an organisation's events, newest first, their total (a counter), and the keys of the
 * pages beside it. A page after a neighbour's key (`before`, `after`: a row number) is read by
 * key. Otherwise, without a status, the page is a range of row numbers read through
 * `callback_events_org_seq`; with a status, rows move in and out of the list as they are
 * delivered, so they have no dense number there: the page is read through
 * `callback_events_org_status_seq` from either end of the list, skipping at most MAX_SKIPPED keys
 * of the index (a page beyond that throws PageTooDeep).
 */
export async function listEvents(db: Executor, filter: EventFilter): Promise<EventPage> {
  const { before, after } = filter;
  let read: Read;
  let total: number;
  if (before === undefined && after === undefined && filter.status === undefined) {
    ({ read, total } = await pageByNumber(db, filter));
  } else {
    total = await countEvents(db, filter.organisationId, filter.status);
    if (before !== undefined) read = await readOlder(db, filter, before);
    else if (after !== undefined) read = await readNewer(db, filter, after);
    else read = { rows: await pageFromEnds(db, filter, total) };
  }
  const { rows } = read;
  const newer = await neighbour(db, filter, '>', {
    end: seqOf(rows[0]),
    key: before,
    known: read.newer,
  });
  const older = await neighbour(db, filter, '<', {
    end: seqOf(rows.at(-1)),
    key: after,
    known: read.older,
  });
  return {
    events: rows.map(callbackEventOf),
    total,
    ...(older === undefined ? {} : { older }),
    ...(newer === undefined ? {} : { newer }),
  };
}

function seqOf(row: CallbackEventRow | undefined): string | undefined {
  const seq = row?.org_seq;
  return seq === undefined || seq === null ? undefined : String(seq);
}

/** The row number `by` away from `key` (keys reach 18 digits, past a double's integers). */
function step(key: string, by: 1 | -1): string {
  return String(BigInt(key) + BigInt(by));
}

/**
 * The key of the page beside this one on `side` ('<' older, '>' newer), or undefined when no row
 * lies that way. A page with rows is bordered by its own row at that end (`end`), of whose
 * neighbour the read may know already (`known`: it read one row more that way). An empty page
 * read by key from the other side (`key`: before=K for the newer side, after=K for the older)
 * is bordered by the nearest row at or beyond that key, and the link's key is set just past that
 * row, so the page beside starts with it. An empty page by number has no neighbour by key.
 */
async function neighbour(
  db: Executor,
  filter: EventFilter,
  side: '<' | '>',
  at: {
    readonly end: string | undefined;
    readonly key: string | undefined;
    readonly known: boolean | undefined;
  },
): Promise<string | undefined> {
  if (at.end !== undefined) {
    const found = at.known ?? (await nearestBeyond(db, filter, side, at.end)) !== undefined;
    return found ? at.end : undefined;
  }
  if (at.key === undefined) return undefined;
  const back: 1 | -1 = side === '>' ? -1 : 1;
  const nearest = await nearestBeyond(db, filter, side, step(at.key, back));
  return nearest === undefined ? undefined : step(nearest, back);
}

/**
 * The organisation's rows (in the filter's status) beyond `key` that way, '<' older or '>' newer,
 * nearest first; from the newest ('<') or the oldest ('>') without a key. In the order of the
 * index's own columns, (organisation_id[, status], org_seq), so nothing is sorted.
 */
function beyond(db: Executor, filter: EventFilter, side: '<' | '>', key?: string) {
  const direction = side === '<' ? 'desc' : 'asc';
  let query = db.selectFrom('callback_events').where('organisation_id', '=', filter.organisationId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (key !== undefined) query = query.where('org_seq', side, key);
  query = query.orderBy('organisation_id', direction);
  if (filter.status !== undefined) query = query.orderBy('status', direction);
  return query.orderBy('org_seq', direction);
}

/** The row number of the list's nearest row beyond `key` that way: one entry of its index. */
async function nearestBeyond(
  db: Executor,
  filter: EventFilter,
  side: '<' | '>',
  key: string,
): Promise<string | undefined> {
  const row = await beyond(db, filter, side, key).select('org_seq').limit(1).executeTakeFirst();
  return row?.org_seq === undefined || row.org_seq === null ? undefined : String(row.org_seq);
}

/** The page before a key (a next link), read with one row more: whether any is older. */
async function readOlder(db: Executor, filter: EventFilter, key: string): Promise<Read> {
  const rows = await beyond(db, filter, '<', key)
    .selectAll()
    .limit(filter.limit + 1)
    .execute();
  return { rows: rows.slice(0, filter.limit), older: rows.length > filter.limit };
}

/** The page after a key (a prev link), read with one row more: whether any is newer. */
async function readNewer(db: Executor, filter: EventFilter, key: string): Promise<Read> {
  const rows = await beyond(db, filter, '>', key)
    .selectAll()
    .limit(filter.limit + 1)
    .execute();
  return { rows: rows.slice(0, filter.limit).reverse(), newer: rows.length > filter.limit };
}

/**
 * A page by number of every delivery, newest first, with the total it was taken from. The page
 * starts at the row number of the (total − offset)-th delivery: that number itself while none was
 * deleted, otherwise where the deletion tree's walk finds it; its rows are read down from there
 * through (organisation_id, org_seq). The total is read first and deliveries written meanwhile
 * are numbered above it, so they do not shift the page. The page reads the deletion count again:
 * it only grows, so when it is the same no deletion committed in between; otherwise both are read
 * again, as an eSIM page is (esim-list-repository.ts).
 */
async function pageByNumber(
  db: Executor,
  filter: EventFilter,
): Promise<{ read: Read; total: number }> {
  for (let attempt = 1; ; attempt += 1) {
    const state = await listState(db, filter.organisationId);
    const total = Math.max(0, state.numbered - state.deleted);
    const rank = total - filter.offset;
    if (rank < 1 || filter.limit < 1) return { read: { rows: [] }, total };
    const start =
      state.deleted === 0
        ? sql<number>`${rank}`
        : seqOfRank('callback_deletions', filter.organisationId, rank, state.numbered);
    const rows = await db
      .selectFrom('callback_events')
      .selectAll()
      .select(deletedCount('callback_deletions', filter.organisationId).as('deleted_now'))
      .where('organisation_id', '=', filter.organisationId)
      .where('org_seq', '<=', start)
      .orderBy('organisation_id', 'desc')
      .orderBy('org_seq', 'desc')
      .limit(filter.limit)
      .execute();
    const still = rows.length > 0 && Number(rows[0]?.deleted_now ?? 0) === state.deleted;
    if (still || attempt >= READ_ATTEMPTS) {
      return { read: { rows: rows.map(({ deleted_now: _seen, ...row }) => row) }, total };
    }
  }
}

/** A status-filtered page by number: from the newest end, or from the oldest near the last page. */
async function pageFromEnds(
  db: Executor,
  filter: EventFilter,
  total: number,
): Promise<CallbackEventRow[]> {
  const newest = () => beyond(db, filter, '<').selectAll();
  if (filter.offset === 0) return newest().limit(filter.limit).execute();
  // The oldest rows, read from the other end of the index: the last page and those near it.
  const fromEnd = total - filter.offset;
  if (fromEnd <= 0) return [];
  const skippedFromEnd = Math.max(0, fromEnd - filter.limit);
  if (skippedFromEnd <= MAX_SKIPPED) {
    const oldest = await beyond(db, filter, '>')
      .selectAll()
      .offset(skippedFromEnd)
      .limit(Math.min(filter.limit, fromEnd))
      .execute();
    return oldest.reverse();
  }
  if (filter.offset > MAX_SKIPPED) throw new PageTooDeep(filter.offset);
  return newest().offset(filter.offset).limit(filter.limit).execute();
}
