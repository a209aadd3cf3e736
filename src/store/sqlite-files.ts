import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import SQLite from 'better-sqlite3';
import { ensurePrivateDir, ensurePrivateFile } from './private-files.js';

// Whole-file operations on an embedded SQLite database: an online copy, checks of a copy, and
// the switch of a restore. The rules (when to refuse, what to verify) are in the CLI commands.

const SIDECARS = ['-wal', '-shm'] as const;

/** The file is not a readable SQLite database, or a check of it failed. */
export class SqliteFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SqliteFileError';
  }
}

/** A fresh path in the directory of `beside`, so a rename onto `beside` stays on one file system. */
export function scratchPathBeside(beside: string, what: string): string {
  return join(dirname(beside), `.${basename(beside)}.${what}-${randomBytes(4).toString('hex')}`);
}

/** Removes a database file and its WAL sidecars, if any. */
export function removeSqliteFile(path: string): void {
  for (const suffix of ['', ...SIDECARS]) rmSync(path + suffix, { force: true });
}

/**
 * Writes a consistent copy of a live database to `destination` (which must not exist) and
 * returns its size. VACUUM INTO reads one snapshot inside a read transaction: in WAL mode it
 * never blocks the server's writers, and writes committed meanwhile are simply not in the copy.
 * The copy is compacted, self-contained (no WAL), checked, fsynced, then linked into place, so a
 * failed or interrupted backup never leaves a half-written file under the destination name.
 */
export function copyLiveDatabase(source: string, destination: string): number {
  if (!existsSync(source)) throw new SqliteFileError(`${source} does not exist`);
  if (existsSync(destination)) {
    throw new SqliteFileError(`${destination} already exists; choose a new file name`);
  }
  const partial = scratchPathBeside(destination, 'partial');
  try {
    // VACUUM INTO writes into an empty file that exists: created 0600, the copy stays private.
    ensurePrivateDir(dirname(destination));
    ensurePrivateFile(partial);
    const db = new SQLite(source, { fileMustExist: true, timeout: 5000 });
    try {
      db.prepare('VACUUM INTO ?').run(partial);
    } finally {
      db.close();
    }
    settle(partial);
    const problems = integrityProblems(partial);
    if (problems.length > 0) {
      throw new SqliteFileError(`the copy failed its integrity check: ${problems.join('; ')}`);
    }
    const fd = openSync(partial, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // link() fails if the destination appeared meanwhile: a backup never overwrites a file.
    try {
      linkSync(partial, destination);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new SqliteFileError(`${destination} already exists; choose a new file name`);
      }
      throw error;
    }
    return statSync(destination).size;
  } finally {
    removeSqliteFile(partial);
  }
}

const HEADER = 'SQLite format 3\0';

/** Throws unless `path` is a SQLite database file that passes `PRAGMA integrity_check`. */
export function checkDatabaseFile(path: string): void {
  if (!existsSync(path)) throw new SqliteFileError(`${path} does not exist`);
  const header = Buffer.alloc(HEADER.length);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  if (header.toString('latin1') !== HEADER) {
    throw new SqliteFileError(`${path} is not a SQLite database`);
  }
  const problems = integrityProblems(path);
  if (problems.length > 0) {
    throw new SqliteFileError(`${path} failed its integrity check: ${problems.join('; ')}`);
  }
}

function integrityProblems(path: string): string[] {
  let db: SQLite.Database | undefined;
  try {
    db = new SQLite(path, { fileMustExist: true, readonly: true });
    const rows = db.pragma('integrity_check') as { integrity_check: string }[];
    const problems = rows.map((r) => r.integrity_check).filter((r) => r !== 'ok');
    return problems.slice(0, 5);
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  } finally {
    db?.close();
  }
}

/**
 * Folds the WAL into the database file and leaves it in rollback-journal mode, so the file is
 * self-contained and can be moved (the service switches it back to WAL when it opens it).
 * Fails if another process has the database open.
 */
export function settle(path: string): void {
  const db = new SQLite(path, { fileMustExist: true, timeout: 0 });
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
    const mode = db.pragma('journal_mode = DELETE', { simple: true });
    if (mode !== 'delete') {
      throw new SqliteFileError(`${path} is open in another process; stop it and retry`);
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new SqliteFileError(`${path} is open in another process; stop it and retry`);
    }
    throw error;
  } finally {
    db.close();
  }
}

/**
 * Puts the settled database `replacement` in the place of `target`. The database it replaces is
 * kept (renamed to `keptAs`) rather than deleted, so a restore can itself be undone.
 */
export function switchDatabaseFile(target: string, replacement: string, keptAs: string): boolean {
  let kept = false;
  if (existsSync(target)) {
    settle(target);
    renameSync(target, keptAs);
    kept = true;
  }
  for (const suffix of SIDECARS) rmSync(target + suffix, { force: true });
  try {
    renameSync(replacement, target);
  } catch (error) {
    if (kept) renameSync(keptAs, target); // put the previous database back
    throw error;
  }
  return kept;
}
