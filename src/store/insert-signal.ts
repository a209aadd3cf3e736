import { InsertQueryNode } from 'kysely';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import type { StorePlugin } from './store-plugins.js';
import { tableName } from './write-watch.js';

/**
 * Tells this process's listeners that rows were inserted into one table through the store, so a
 * worker waiting for such rows starts at once instead of at its next poll. A hint only: it comes
 * when the INSERT has run, inside its transaction, before COMMIT (which no plugin sees). On one
 * SQLite connection anything the listener then reads waits for that transaction to end; on
 * PostgreSQL a read on another connection may come before the COMMIT and miss the rows, so a
 * listener must still poll. Rows other processes insert are not seen here.
 */
export interface InsertSignal {
  /** Calls `listener` once, after the next insert; returns a function that cancels the call. */
  once(listener: () => void): () => void;
}

export function insertSignal(table: string): { plugin: StorePlugin; signal: InsertSignal } {
  const listeners = new Set<() => void>();
  const inserting = new WeakSet<object>();
  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      const { node } = args;
      if (listeners.size > 0 && InsertQueryNode.is(node) && tableName(node.into) === table) {
        inserting.add(args.queryId);
      }
      return node;
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      if (inserting.has(args.queryId)) {
        inserting.delete(args.queryId);
        const called = [...listeners];
        listeners.clear();
        for (const listener of called) listener();
      }
      return args.result;
    },
  };
  return {
    // Statements run directly (direct-statements.ts) never insert into a signalled table.
    plugin: { kysely: plugin, direct: () => undefined },
    signal: {
      once(listener) {
        const entry = (): void => listener();
        listeners.add(entry);
        return () => {
          listeners.delete(entry);
        };
      },
    },
  };
}
