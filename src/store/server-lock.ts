import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import type { DatabaseTarget } from '../config.js';
import { ensurePrivateDir, ensurePrivateFile, realPath } from './private-files.js';

// One server process per SQLite file. Two servers on one file contend for its write lock and
// answer "database is locked" under load; several instances belong on PostgreSQL. The guard is
// an operating-system lock, not a PID file: SQLite's own exclusive lock on a small file beside the
// database (`<database>.lock`), held for the life of the process. The kernel drops it when the
// process ends in any way, so a crashed server never blocks the next start, and it works across
// processes on one host and on macOS as on Linux. CLI commands never take it: they keep working
// beside a running server. `esim restore` takes it too, so it never replaces a served database.

export interface ServerLock {
  readonly path: string;
  release(): void;
}

/** The database file is held by another server (or a restore). */
export class DatabaseInUseError extends Error {
  constructor(
    readonly databasePath: string,
    readonly lockPath: string,
  ) {
    super(`${databasePath} is in use by another esim serve or esim restore (lock ${lockPath})`);
    this.name = 'DatabaseInUseError';
  }
}

export function serverLockPath(databasePath: string): string {
  return `${databasePath}.lock`;
}

/**
 * Takes the one-server lock of a SQLite database file, or throws DatabaseInUseError at once
 * (no waiting). PostgreSQL and in-memory databases need none: the result is undefined.
 */
export function takeServerLock(target: DatabaseTarget): ServerLock | undefined {
  if (target.kind !== 'sqlite' || target.path === ':memory:') return undefined;
  // The real path: a symlink to a live database must meet the same lock.
  const path = serverLockPath(realPath(target.path));
  ensurePrivateDir(dirname(path));
  ensurePrivateFile(path);
  const lock = new SQLite(path, { timeout: 0 });
  try {
    // In rollback-journal mode, BEGIN EXCLUSIVE takes the file's exclusive lock at once and
    // keeps it until the transaction ends; nothing is ever written.
    lock.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new DatabaseInUseError(target.path, path);
    }
    throw error;
  }
  let held = true;
  return {
    path,
    release() {
      if (!held) return;
      held = false;
      lock.exec('ROLLBACK');
      lock.close();
    },
  };
}
