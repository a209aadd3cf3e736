import { DeleteQueryNode, InsertQueryNode, TableNode } from 'kysely';
import type {
  KyselyPlugin,
  OperationNode,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import type { StatementObserver } from './direct-statements.js';
import type { StorePlugin } from './store-plugins.js';

/**
 * A number that changes whenever a statement that may change data runs through the store: an
 * answer read from the database while it stayed the same is still what the database holds, as
 * far as this process's own writes go. Writes of other processes are not seen here.
 */
export interface WriteCounter {
  current(): number;
}

// A raw statement reads only when it starts as a query and names no write: SQLite and PostgreSQL
// both allow a WITH before INSERT, UPDATE and DELETE. Counting a read as a write costs a miss.
const QUERY_START = /^\s*(select|with)\b/i;
const WRITE_WORD = /\b(insert|update|delete|replace)\b/i;

// Tables no answer held in memory is built from: a write to them alone moves nothing. The
// simulator's request journal is written after every API answer; counting it would end every
// held answer at each request.
const UNWATCHED_TABLES: ReadonlySet<string> = new Set(['api_requests']);

/** The table a node names, when it is a table. */
export function tableName(node: OperationNode | undefined): string | undefined {
  return node !== undefined && TableNode.is(node) ? node.table.identifier.name : undefined;
}

/** Whether the statement writes only to tables no answer held in memory is built from. */
function writesUnwatchedOnly(node: RootOperationNode): boolean {
  if (InsertQueryNode.is(node)) return UNWATCHED_TABLES.has(tableName(node.into) ?? '');
  if (DeleteQueryNode.is(node)) {
    return (
      node.from.froms.length === 1 &&
      node.using === undefined &&
      UNWATCHED_TABLES.has(tableName(node.from.froms[0]) ?? '')
    );
  }
  return false;
}

/** Whether a statement may change data (a read counted as a write only costs a cache miss). */
export function mayWrite(node: RootOperationNode): boolean {
  if (node.kind === 'SelectQueryNode') return false;
  if (writesUnwatchedOnly(node)) return false;
  if (node.kind !== 'RawNode') return true;
  const text = node.sqlFragments.join(' ');
  return !QUERY_START.test(text) || WRITE_WORD.test(text);
}

/**
 * Counts every statement that may write (applied to the store by store-plugins.ts, so the group
 * writer's transactions are counted too), before it runs and again when its result
 * comes back, so a read that overlapped a write is never taken for a fresh one. On one SQLite
 * connection a read waits for an open transaction to end, so what a read saw while the count did
 * not move was committed. (On PostgreSQL a read on another connection can see a state that a
 * transaction's COMMIT, which no plugin sees, changes later: nothing may rely on the count there.)
 */
export function writeCounter(): { plugin: StorePlugin; writes: WriteCounter } {
  let count = 0;
  const writing = new WeakSet<object>();
  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      if (mayWrite(args.node)) {
        writing.add(args.queryId);
        count += 1;
      }
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      if (writing.has(args.queryId)) {
        writing.delete(args.queryId);
        count += 1;
      }
      return args.result;
    },
  };
  // A statement run directly (direct-statements.ts) has ended when this is called: nothing read
  // while it ran.
  const direct: StatementObserver = (write) => {
    if (write) count += 2;
  };
  return { plugin: { kysely: plugin, direct }, writes: { current: () => count } };
}
