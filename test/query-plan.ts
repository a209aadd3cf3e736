import { CompiledQuery, sql } from 'kysely';
import type { KyselyPlugin, RootOperationNode } from 'kysely';
import type { Db, Executor } from '../src/store/database.js';

// The query plans of what a repository function runs, to check that a read uses the index meant
// for it and sorts nothing. On PostgreSQL, sequential scans are turned off for the EXPLAIN, so a
// small test table shows the plan a large one gets (the planner prefers a scan of a few rows),
// and so are bitmap scans.

/** The statements `run` sends through the handle it is given, compiled. */
export async function statementsOf(
  db: Db,
  run: (db: Executor) => Promise<unknown>,
): Promise<CompiledQuery[]> {
  const nodes: RootOperationNode[] = [];
  const spy: KyselyPlugin = {
    transformQuery(args) {
      nodes.push(args.node);
      return args.node;
    },
    transformResult(args) {
      return Promise.resolve(args.result);
    },
  };
  await run(db.withPlugin(spy));
  return nodes.map((node) => db.getExecutor().compileQuery(node, { queryId: 'plan' }));
}

/**
 * The plan of one compiled statement, as text lines. `run` (PostgreSQL, for reads only: the
 * statement is executed) shows what plain EXPLAIN can leave out, such as the subquery in the
 * select list of a recursive query's step.
 */
export async function planOf(
  db: Db,
  kind: 'sqlite' | 'postgres',
  query: CompiledQuery,
  options: { readonly run?: boolean } = {},
): Promise<string> {
  if (kind === 'sqlite') {
    const result = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
    );
    return result.rows.map((r) => r.detail).join('\n');
  }
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    // A bitmap scan reads a few rows then sorts them, which a small table makes look cheapest; a
    // large one is read in index order.
    await sql`set local enable_bitmapscan = off`.execute(trx);
    const result = await trx.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`explain${options.run === true ? ' (analyze)' : ''} ${query.sql}`, [
        ...query.parameters,
      ]),
    );
    return result.rows.map((r) => r['QUERY PLAN']).join('\n');
  });
}

/** Fails unless the plan reads `index` and sorts nothing (no temporary B-tree, no Sort node). */
export function assertIndexedRead(plan: string, index: string): void {
  if (!plan.includes(index)) throw new Error(`the plan does not use ${index}:\n${plan}`);
  if (/TEMP B-TREE|(^|\n)SCAN |\bSort\b|Seq Scan/.test(plan)) {
    throw new Error(`the plan sorts or scans:\n${plan}`);
  }
}
