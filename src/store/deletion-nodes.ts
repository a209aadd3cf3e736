import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';

/** Anything a statement runs on: a Kysely instance or a transaction, of any schema. */
type Runner = Parameters<RawBuilder<unknown>['execute']>[0];

// The nodes of a Fenwick (binary indexed) tree of deleted row numbers (repositories/
// deletion-tree.ts reads the tree) and their writing, shared by the repository and the
// migrations that count earlier deletions into a tree. A node whose every number is deleted
// (full) keeps its row, and the rows inside its range are removed: a walk down the tree moves
// past a full node without reading inside it, and no later deletion reaches inside it (its
// numbers are all deleted). So a list deleted from its oldest end, as the callback retention
// does, keeps some 2 × 41 rows of tree, not one per deleted number.

/** The tree's span: row numbers 1..2^40. Its node 2^40 counts every deletion. */
export const SPAN = 2 ** 40;

/** The lowest set bit of a positive integer up to 2^53 (bitwise operators stop at 2^31). */
function lowbit(n: number): number {
  let bit = 1;
  while ((n / bit) % 2 === 0) bit *= 2;
  return bit;
}

/** The largest power of two not above n (n ≥ 1). */
export function topStep(n: number): number {
  let step = 1;
  while (step * 2 <= n) step *= 2;
  return step;
}

/** Inclusive ranges of row numbers, [first, last]. */
export type NumberRange = readonly [first: number, last: number];

/** Sorted row numbers as runs of consecutive numbers. */
export function runsOf(seqs: readonly number[]): NumberRange[] {
  const sorted = [...seqs].sort((a, b) => a - b);
  const runs: [number, number][] = [];
  for (const seq of sorted) {
    const last = runs.at(-1);
    if (last !== undefined && seq === last[1] + 1) last[1] = seq;
    else runs.push([seq, seq]);
  }
  return runs;
}

/** Whether a node's count says every number of its range is deleted. */
export function isFull(node: number, deleted: number): boolean {
  return deleted >= lowbit(node);
}

/** The nodes strictly inside a node's range: (node − lowbit(node), node). */
export function innerNodes(node: number): NumberRange | undefined {
  const size = lowbit(node);
  return size === 1 ? undefined : [node - size + 1, node - 1];
}

/**
 * What deleting the numbers of `ranges` (disjoint, none deleted before) adds to the tree, node by
 * node, in increasing node order (the order every writer takes them in, so two never wait on each
 * other in a cycle). Node n counts the deleted numbers of (n − lowbit(n), n]. Within a range only
 * the nodes not inside a node wholly within it are written: walking down from its last number, a
 * node whose whole range lies in it is counted whole and its inside skipped; one reaching below
 * the range counts the numbers of the range it holds. Above the range, the nodes over its last
 * number count what they hold of it. So a run of deleted numbers writes some 2 × 41 nodes at most
 * however long it is, and a single number the nodes above it.
 */
export function deletionNodes(ranges: readonly NumberRange[]): [node: number, deleted: number][] {
  const added = new Map<number, number>();
  const add = (node: number, n: number) => added.set(node, (added.get(node) ?? 0) + n);
  for (const [first, last] of ranges) {
    if (!Number.isSafeInteger(first) || first < 1 || last < first || last > SPAN) {
      throw new Error(`row numbers ${first}..${last} are outside 1..${SPAN}`);
    }
    for (let node = last; node >= first;) {
      const bottom = node - lowbit(node) + 1;
      if (bottom >= first) {
        add(node, node - bottom + 1);
        node = bottom - 1;
      } else {
        add(node, node - first + 1);
        node -= 1;
      }
    }
    for (let node = last + lowbit(last); node <= SPAN; node += lowbit(node)) {
      add(node, last - Math.max(first, node - lowbit(node) + 1) + 1);
    }
  }
  return [...added].sort(([a], [b]) => a - b);
}

/** Rows of one insert: three parameters each, well under either database's limit. */
const CHUNK = 500;

/**
 * Adds deleted row numbers (runs of them, disjoint, none deleted before) to an organisation's
 * tree in `table`, in the caller's transaction, then removes the rows inside the nodes that
 * became full. The nodes are written in increasing order.
 */
export async function writeDeletions(
  db: Runner,
  table: string,
  organisationId: string,
  runs: readonly NumberRange[],
): Promise<void> {
  const nodes = deletionNodes(runs);
  const full: NumberRange[] = [];
  for (let i = 0; i < nodes.length; i += CHUNK) {
    const values = nodes
      .slice(i, i + CHUNK)
      .map(([node, deleted]) => sql`(${organisationId}, ${node}, ${deleted})`);
    const { rows } = await sql<{ node: number | string; deleted: number | string }>`
      insert into ${sql.table(table)} as t (organisation_id, node, deleted)
      values ${sql.join(values)}
      on conflict (organisation_id, node) do update set deleted = t.deleted + excluded.deleted
      returning node, deleted`.execute(db);
    for (const row of rows) {
      const node = Number(row.node);
      const inside = isFull(node, Number(row.deleted)) ? innerNodes(node) : undefined;
      if (inside !== undefined) full.push(inside);
    }
  }
  // The widest first; a range inside one already removed is skipped.
  full.sort((a, b) => b[1] - b[0] - (a[1] - a[0]));
  const removed: NumberRange[] = [];
  for (const range of full) {
    if (removed.some(([first, last]) => range[0] >= first && range[1] <= last)) continue;
    removed.push(range);
    await sql`delete from ${sql.table(table)}
      where organisation_id = ${organisationId} and node >= ${range[0]} and node <= ${range[1]}`.execute(
      db,
    );
  }
}
