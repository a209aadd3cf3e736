import type { KyselyPlugin } from 'kysely';
import type { Store } from './database.js';
import { createGroupWriter } from './group-commit.js';
import type { GroupCommitObserver } from './group-commit.js';

/**
 * The store seen through `plugins` (query timing, the write counter), in that order, with one
 * group writer on that handle, so the writer's transactions pass through them too; its batches
 * are reported to `groupCommit`. Closing waits for that writer, then closes the store.
 */
export function withPlugins(
  store: Store,
  plugins: readonly KyselyPlugin[],
  groupCommit?: GroupCommitObserver,
): Store {
  const db = plugins.reduce((handle, plugin) => handle.withPlugin(plugin), store.db);
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
