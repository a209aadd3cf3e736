// The SQLite checkpointer's thread (wal-checkpointer.ts starts it). It owns a connection of its
// own to the database file and copies the WAL back into the database every few milliseconds with
// PASSIVE checkpoints, which never wait for and never block the service's connection, so the
// copying and its fsyncs run beside the event loop instead of inside a commit. Self-contained
// (Node.js and better-sqlite3 only): it is loaded as its own file, apart from the service.
import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';

export interface CheckpointerSettings {
  /** The database file. */
  readonly path: string;
  readonly intervalMs: number;
  /**
   * A WAL file larger than this is restarted: once a PASSIVE checkpoint has copied most of it, a
   * RESTART copies the rest while no write is under way, so the next write starts the WAL again
   * from its beginning (cut back to this size) instead of appending to it.
   */
  readonly restartBytes: number;
  /** A WAL file larger than this is checkpointed in full and emptied, writers waiting meanwhile. */
  readonly truncateBytes: number;
}

/** What one PRAGMA wal_checkpoint answers: frames in the WAL and frames copied back. */
interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

// How long a TRUNCATE of an oversized WAL waits (in this thread) for the service's current write
// to end. The service's writes wait behind it meanwhile, asynchronously past 250 ms.
const TRUNCATE_WAIT_MS = 2000;
// How long a RESTART waits for the service's current write (one group-commit batch, a few
// milliseconds) to end before it gives up until the next interval.
const RESTART_WAIT_MS = 20;

function start(settings: CheckpointerSettings): void {
  const port = parentPort;
  if (port === null) throw new Error('the checkpointer runs as a worker thread');
  const db = new SQLite(settings.path, { fileMustExist: true });
  db.pragma('busy_timeout = 0');
  const wal = `${settings.path}-wal`;
  const checkpoint = (mode: 'PASSIVE' | 'RESTART' | 'TRUNCATE'): CheckpointResult | undefined => {
    const rows = db.pragma(`wal_checkpoint(${mode})`) as CheckpointResult[];
    return rows[0];
  };
  const walBytes = (): number => {
    try {
      return statSync(wal).size;
    } catch {
      return 0; // no WAL file yet (or the last connection just removed it)
    }
  };
  let lastLog = -1;
  const tick = (): void => {
    if (walBytes() > settings.truncateBytes) {
      db.pragma(`busy_timeout = ${TRUNCATE_WAIT_MS}`);
      try {
        checkpoint('TRUNCATE');
      } finally {
        db.pragma('busy_timeout = 0');
      }
      lastLog = -1;
      return;
    }
    let result = checkpoint('PASSIVE');
    if (result === undefined) return;
    // Under writes that never pause, a PASSIVE checkpoint never catches up with the end of the
    // WAL, so the WAL never starts again and only grows. A RESTART (waiting at most
    // RESTART_WAIT_MS for the write under way to end, else acting as PASSIVE) copies the few
    // frames written since the PASSIVE one, holding writes off for that long, and makes the next
    // write start from the beginning.
    if (walBytes() > settings.restartBytes) {
      db.pragma(`busy_timeout = ${RESTART_WAIT_MS}`);
      try {
        result = checkpoint('RESTART') ?? result;
      } finally {
        db.pragma('busy_timeout = 0');
      }
    }
    // Nothing written since the last tick and everything copied back: the service is idle, so
    // the WAL file is emptied (it would otherwise keep its high-water size until the next write).
    // With busy_timeout 0 it gives up at once if a write or a read is under way.
    if (result.log > 0 && result.log === lastLog && result.checkpointed === result.log) {
      checkpoint('TRUNCATE');
      lastLog = -1;
      return;
    }
    lastLog = result.log;
  };
  let timer: NodeJS.Timeout | undefined;
  const schedule = (): void => {
    timer = setTimeout(() => {
      tick();
      schedule();
    }, settings.intervalMs);
  };
  schedule();
  port.on('message', (message: unknown) => {
    if (message !== 'stop') return;
    clearTimeout(timer);
    db.close();
    port.close();
  });
}

start(workerData as CheckpointerSettings);
