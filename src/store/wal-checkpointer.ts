import { threadEntry } from '../thread-entry.js';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import type { CheckpointerSettings } from './wal-checkpointer-worker.js';

// Checkpoints off the event loop. By default SQLite checkpoints inside the COMMIT that takes the
// WAL past 1,000 pages: the writing connection copies those pages into the database file and
// syncs it, synchronously, on the event loop, while every order waits. The service's connection
// instead never checkpoints (wal_autocheckpoint = 0); a worker thread with a connection of its
// own does (wal-checkpointer-worker.ts): PASSIVE checkpoints every SQLITE_CHECKPOINT_INTERVAL_MS,
// which neither wait for nor block writes. Once a checkpoint has copied the whole WAL back, the
// next write starts the WAL again from its beginning, cut back to journal_size_limit, so the file
// stays bounded. Writes that never pause keep a PASSIVE checkpoint from ever reaching the end of
// the WAL: past WAL_SIZE_LIMIT_BYTES the thread follows a PASSIVE checkpoint with a RESTART, taken
// only while no write is under way, which copies the frames written since (a few milliseconds'
// worth) and makes the next write start the WAL again; a WAL that still grows past
// WAL_TRUNCATE_BYTES is checkpointed in full and emptied, writes waiting meanwhile. Durability is unchanged: a checkpoint only copies committed pages from the WAL to
// the database file, and a crash at any moment leaves a WAL that the next open replays.

/** Size of the WAL at which the checkpointer stops waiting for a pause in the writes. */
export const WAL_TRUNCATE_BYTES = 64 * 1024 * 1024;
/** What the WAL file is cut back to whenever it starts again from its beginning. */
export const WAL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024;

export interface Checkpointer {
  /** Waits for the thread's last checkpoint to end and closes its connection. */
  stop(): Promise<void>;
}

/**
 * Takes checkpoints of `path` away from `sqlite`, the service's connection, onto a worker thread.
 * Should the thread fail, `sqlite` checkpoints by itself again, as SQLite does by default.
 */
export function startCheckpointer(
  sqlite: SQLite.Database,
  path: string,
  intervalMs: number,
): Checkpointer {
  sqlite.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  sqlite.pragma('wal_autocheckpoint = 0');
  const settings: CheckpointerSettings = {
    path,
    intervalMs,
    restartBytes: WAL_SIZE_LIMIT_BYTES,
    truncateBytes: WAL_TRUNCATE_BYTES,
  };
  let exited: Promise<void> | undefined;
  let worker: Worker | undefined;
  const begin = (): void => {
    const entry = threadEntry(
      import.meta.url,
      'wal-checkpointer-worker.cjs',
      'wal-checkpointer-worker',
    );
    const thread = new Worker(entry.code, { eval: entry.eval, workerData: settings });
    // Never what keeps the process alive: the store's close() stops it.
    thread.unref();
    exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
    thread.on('error', () => {
      // The WAL must not grow without end: back to checkpoints in the commits.
      if (sqlite.open) sqlite.pragma('wal_autocheckpoint = 1000');
    });
    worker = thread;
  };
  // The thread starts after one interval, when there can first be something to copy: loading
  // it (a second JavaScript environment and the driver) stays out of the service's start.
  const starting = setTimeout(begin, intervalMs);
  starting.unref();
  let stopping = false;
  return {
    async stop() {
      clearTimeout(starting);
      if (!stopping && worker !== undefined) {
        stopping = true;
        // Referenced again: the process must not end before the thread's connection has closed.
        worker.ref();
        worker.postMessage('stop');
      }
      await exited;
    },
  };
}
