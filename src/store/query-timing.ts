import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import type { Store } from './database.js';
import { createGroupWriter } from './group-commit.js';
import type { GroupCommitObserver } from './group-commit.js';

/**
 * The store with every statement timed: from when Kysely hands it to the driver until its
 * result comes back (a statement that fails is not timed). For the query-time metric; the group
 * writer's batches are reported to `groupCommit`.
 */
export function withQueryTiming(
  store: Store,
  observe: (seconds: number) => void,
  groupCommit?: GroupCommitObserver,
): Store {
  const started = new WeakMap<object, bigint>();
  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      started.set(args.queryId, process.hrtime.bigint());
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      const start = started.get(args.queryId);
      if (start !== undefined) {
        started.delete(args.queryId);
        observe(Number(process.hrtime.bigint() - start) / 1e9);
      }
      return args.result;
    },
  };
  const db = store.db.withPlugin(plugin);
  // The writer's transactions are timed too: it runs them on the timed handle.
  const writer = createGroupWriter(db, store.writer.settings, groupCommit);
  return {
    ...store,
    db,
    writer,
    async close() {
      await writer.idle();
      await store.close();
    },
  };
}
