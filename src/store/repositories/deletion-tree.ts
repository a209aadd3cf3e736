import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import type { Executor } from '../database.js';
import { SPAN, runsOf, topStep, writeDeletions } from '../deletion-nodes.js';

// A Fenwick (binary indexed) tree of the deleted row numbers of an organisation's list, for the
// lists whose rows keep the number they were given when a row is deleted: eSIMs
// (027-esim-deletions, which has the why) and deliveries (029-callback-deletions). Node n holds
// how many numbers in (n - lowbit(n), n] were deleted, a row only for nodes some deletion
// reached (the rows inside a full node are removed: deletion-nodes.ts). A deletion writes at most
// 41 rows, a run of them at most some 82; the row number of the k-th listed row is a walk down
// the tree, one key read per level. Both costs are bounded by the tree's 41 levels, whatever the
// organisation holds.

/** The tables that hold a deletion tree, one row per (organisation, node). */
export type DeletionTable = 'esim_deletions' | 'callback_deletions';

/**
 * Counts deleted row numbers of an organisation's list in its tree, in the caller's transaction:
 * the nodes their runs reach, in increasing order (so two deletions never wait on each other in a
 * cycle), each written once; the rows inside a node that became full are removed.
 */
export async function recordDeletions(
  db: Executor,
  table: DeletionTable,
  organisationId: string,
  seqs: readonly number[],
): Promise<void> {
  await writeDeletions(db, table, organisationId, runsOf(seqs));
}

/** The row numbers a list has given out (1..numbered) and how many of them were deleted. */
export interface ListState {
  readonly numbered: number;
  readonly deleted: number;
}

/**
 * A list's state, read in one statement (one snapshot), two keys: `counter`, its organisation's
 * count of numbers given out, and the tree's node 2^40.
 */
export async function readListState(
  db: Executor,
  table: DeletionTable,
  counter: string,
  organisationId: string,
): Promise<ListState> {
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('organisation_counts')
        .select('value')
        .where('organisation_id', '=', organisationId)
        .where('name', '=', counter)
        .as('numbered'),
      deletedCount(table, organisationId).as('deleted'),
    ])
    .executeTakeFirst();
  return { numbered: Number(row?.numbered ?? 0), deleted: Number(row?.deleted ?? 0) };
}

/** How many of the organisation's row numbers were deleted (node 2^40), as a scalar subquery. */
export function deletedCount(
  table: DeletionTable,
  organisationId: string,
): RawBuilder<number | null> {
  return sql<number | null>`(select d.deleted from ${sql.table(table)} as d
    where d.organisation_id = ${organisationId} and d.node = ${SPAN})`;
}

/**
 * The row number of the organisation's `rank`-th listed row (1 ≤ rank ≤ numbered − deleted), as
 * a scalar subquery: a walk down the deletion tree from the largest power of two within
 * `numbered`. At each level the node ahead, pos + step, covers `step` numbers, `step − deleted`
 * of them listed, and the walk moves past it while they are fewer than the rank still to find.
 * Each level reads the next level's node by key (a scalar subquery: a join would let a planner
 * read every node of the organisation at each level).
 */
export function seqOfRank(
  table: DeletionTable,
  organisationId: string,
  rank: number,
  numbered: number,
): RawBuilder<number> {
  const deletedAt = (node: RawBuilder<unknown>) => sql`cast(coalesce((
    select d.deleted from ${sql.table(table)} as d
    where d.organisation_id = ${organisationId} and d.node = ${node}), 0) as bigint)`;
  const moves = sql`(w.pos + w.step <= ${numbered} and w.step - w.deleted < w.rem)`;
  const nextPos = sql`(case when ${moves} then w.pos + w.step else w.pos end)`;
  const top = topStep(numbered);
  return sql<number>`(
    with recursive walk (step, pos, rem, deleted) as (
      select cast(${top} as bigint), cast(0 as bigint), cast(${rank} as bigint),
        ${deletedAt(sql`cast(${top} as bigint)`)}
      union all
      select
        w.step / 2,
        ${nextPos},
        case when ${moves} then w.rem - (w.step - w.deleted) else w.rem end,
        ${deletedAt(sql`${nextPos} + w.step / 2`)}
      from walk as w
      where w.step >= 1
    )
    select pos + 1 from walk where step = 0)`;
}
