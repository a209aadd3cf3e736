import type { KyselyPlugin } from 'kysely';
import type { Store } from './database.js';
import type { StatementObserver } from './direct-statements.js';
import { createGroupWriter } from './group-commit.js';
import type { GroupCommitObserver } from './group-commit.js';

/**
 * A plugin of the store: Kysely's, and what it does for the statements that SQLite's batch
 * transactions run without Kysely (direct-statements.ts).
 */
export interface StorePlugin {
  readonly kysely: KyselyPlugin;
  readonly direct: StatementObserver;
}

/**
 * The store seen through `plugins` (query timing, the write counter), in that order, with one
 * group writer on that handle, so the writer's transactions pass through them too; its batches
 * are reported to `groupCommit`. Closing waits for that writer, then closes the store.
 */
export function withPlugins(
  store: Store,
  plugins: readonly StorePlugin[],
  groupCommit?: GroupCommitObserver,
): Store {
  const db = plugins.reduce((handle, plugin) => handle.withPlugin(plugin.kysely), store.db);
  const direct = store.writer.direct?.observedBy(plugins.map((plugin) => plugin.direct));
  const writer = createGroupWriter(db, store.writer.settings, groupCommit, direct);
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
