import { sql } from 'kysely';
import type { Executor } from '../database.js';
import type { Esim } from '../domain-types.js';
import { deletedCount, readListState, recordDeletions, seqOfRank } from './deletion-tree.js';
import type { ListState } from './deletion-tree.js';
import { ESIM_COLUMNS, esimOf } from './esim-repository.js';

// The organisation's eSIMs paged by number (GET /esims, the portal's eSIM list), in the order
// they were issued. Every eSIM keeps the row number 022's trigger gave it (`seq`), a deleted one
// has it cleared, and `esim_deletions` is a Fenwick tree of the deleted numbers
// (027-esim-deletions has the why; deletion-tree.ts reads and writes it). A deletion writes at most 41 rows of the tree and a page read
// walks at most 41 of its keys, whatever the organisation holds (docs/esims.md, "Deleting costs
// the same at any size").

/** A page read retries this many times when deletions keep arriving during it, then answers. */
const READ_ATTEMPTS = 5;

/**
 * Takes a deleted eSIM out of its organisation's list: its row number is counted in the deletion
 * tree and cleared. The other eSIMs keep theirs, so this costs the same whatever was issued
 * after it. The tree's nodes are taken in increasing order, so two deletions never wait on each
 * other in a cycle; clearing the number then moves the eSIM's profile status count
 * (023-list-counters), after the tree, as every deletion does.
 */
export async function takeOutOfEsimList(
  db: Executor,
  organisationId: string,
  iccid: string,
): Promise<void> {
  const row = await db
    .selectFrom('esims')
    .select('seq')
    .where('iccid', '=', iccid)
    .where('organisation_id', '=', organisationId)
    .executeTakeFirst();
  if (row?.seq === null || row?.seq === undefined) return;
  await recordDeletions(db, 'esim_deletions', organisationId, [Number(row.seq)]);
  await db.updateTable('esims').set({ seq: null }).where('iccid', '=', iccid).execute();
}

/**
 * The page's rows, in one statement: the listed eSIMs from the `rank`-th on, oldest first up to
 * row number `numbered` (eSIMs issued after the total was read are not on this page), or newest
 * first down from it. Deleted eSIMs have no row number, so the index range holds the page's rows
 * and nothing else. Each row carries the deletion count as this statement saw it.
 */
function pageRows(
  db: Executor,
  organisationId: string,
  page: {
    rank: number;
    state: ListState;
    limit: number;
    direction: 'asc' | 'desc';
  },
) {
  const { rank, state } = page;
  const start =
    state.deleted === 0
      ? sql<number>`${rank}`
      : seqOfRank('esim_deletions', organisationId, rank, state.numbered);
  const query = db
    .selectFrom('esims')
    .select(ESIM_COLUMNS)
    .select(deletedCount('esim_deletions', organisationId).as('deleted_now'))
    .where('organisation_id', '=', organisationId);
  const bounded =
    page.direction === 'asc'
      ? query.where('seq', '>=', start).where('seq', '<=', state.numbered)
      : query.where('seq', '<=', start);
  return bounded
    .orderBy('organisation_id', page.direction)
    .orderBy('seq', page.direction)
    .limit(page.limit)
    .execute();
}

export interface EsimPage {
  /** How many eSIMs the organisation lists (deleted ones are not listed). */
  readonly total: number;
  readonly rows: Esim[];
}

/**
 * A page of the organisation's eSIMs in the order they were issued (`desc`: newest first), with
 * the total it was taken from: two statements, as without deletions. `offset` listed eSIMs are
 * skipped from the start (or the end): without any deletion the page starts at row number
 * offset + 1 (or total − offset), otherwise where the deletion tree's walk finds it. The total
 * and the deletion count are read first, then the page, which reads the count again: the count
 * only grows, so when it is the same no deletion committed in between; otherwise the page may not
 * match the total (or be empty: its rows were deleted), and both are read again. So a page is
 * the eSIMs listed at one moment, from the offset on, with that moment's total; eSIMs issued
 * meanwhile are numbered beyond the total and left to the next page.
 */
export async function readEsimPage(
  db: Executor,
  organisationId: string,
  page: { offset: number; limit: number; direction: 'asc' | 'desc' },
): Promise<EsimPage> {
  for (let attempt = 1; ; attempt += 1) {
    const state = await readListState(db, 'esim_deletions', 'esims', organisationId);
    const total = state.numbered - state.deleted;
    const rank = page.direction === 'asc' ? page.offset + 1 : total - page.offset;
    if (rank < 1 || rank > total || page.limit < 1) return { total, rows: [] };
    const read = await pageRows(db, organisationId, { ...page, rank, state });
    const still = read.length > 0 && Number(read[0]?.deleted_now ?? 0) === state.deleted;
    if (still || attempt >= READ_ATTEMPTS) {
      return { total, rows: read.map(({ deleted_now: _seen, ...row }) => esimOf(row)) };
    }
  }
}
