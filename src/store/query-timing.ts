import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import type { StorePlugin } from './store-plugins.js';

/**
 * Times every statement: from when Kysely hands it to the driver until its result comes back (a
 * statement that fails is not timed). For the query-time metric (store-plugins.ts applies it).
 */
export function queryTimingPlugin(observe: (seconds: number) => void): StorePlugin {
  const started = new WeakMap<object, bigint>();
  const kysely: KyselyPlugin = {
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
  return {
    kysely,
    direct: (_write, seconds) => {
      if (seconds !== undefined) observe(seconds);
    },
  };
}
