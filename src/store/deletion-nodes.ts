// The nodes of a Fenwick (binary indexed) tree of deleted row numbers (repositories/
// deletion-tree.ts has the tree): plain arithmetic, shared by the repository and the migrations
// that count earlier deletions into a tree.

/** The tree's span: row numbers 1..2^40. Its node 2^40 counts every deletion. */
export const SPAN = 2 ** 40;

/** The lowest set bit of a positive integer up to 2^53 (bitwise operators stop at 2^31). */
function lowbit(n: number): number {
  let bit = 1;
  while ((n / bit) % 2 === 0) bit *= 2;
  return bit;
}

/** The tree nodes whose range holds row number `seq`, in increasing order. */
function nodesAbove(seq: number): number[] {
  if (!Number.isSafeInteger(seq) || seq < 1 || seq > SPAN) {
    throw new Error(`row number ${seq} is outside 1..${SPAN}`);
  }
  const nodes: number[] = [];
  for (let node = seq; node <= SPAN; node += lowbit(node)) nodes.push(node);
  return nodes;
}

/** The largest power of two not above n (n ≥ 1). */
export function topStep(n: number): number {
  let step = 1;
  while (step * 2 <= n) step *= 2;
  return step;
}

/**
 * What deleting row numbers `seqs` adds to the tree, node by node, in increasing node order (the
 * order every writer takes them in, so two never wait on each other in a cycle).
 */
export function deletionNodes(seqs: readonly number[]): [node: number, deleted: number][] {
  const added = new Map<number, number>();
  for (const seq of seqs) {
    for (const node of nodesAbove(seq)) added.set(node, (added.get(node) ?? 0) + 1);
  }
  return [...added].sort(([a], [b]) => a - b);
}
