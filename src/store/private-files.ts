import {
  chmodSync,
  closeSync,
  renameSync,
  rmSync,
  writeFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  realpathSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';

// The SQLite database holds PIN/PUK codes, activation codes, card tokens and password hashes:
// it, its WAL and shared-memory files, its lock and every backup are created readable by the
// service's user only (0600), in folders it creates for itself only (0700), whatever the umask.
// SQLite gives the WAL and SHM files the mode of the database file, so creating that file 0600
// first is what keeps them private too.

const SIDECARS = ['-wal', '-shm', '-journal'];

/** Creates the folder (and its parents) 0700 where missing; a folder that exists is left as is. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** Creates an empty file 0600, or makes an existing one 0600. */
export function ensurePrivateFile(path: string): void {
  if (existsSync(path)) {
    chmodSync(path, 0o600);
    return;
  }
  closeSync(openSync(path, 'a', 0o600));
  chmodSync(path, 0o600);
}

/**
 * Writes a file that holds secrets (a simulator snapshot: API keys, password hashes, PINs): the
 * text goes to a new 0600 file beside it, which then replaces the file, so the secrets are
 * never readable by others, not even for a moment, whatever the umask or the old file's mode.
 */
export function writePrivateFile(path: string, text: string): void {
  const partial = join(
    dirname(path),
    `.${basename(path)}.${randomBytes(6).toString('hex')}.partial`,
  );
  try {
    writeFileSync(partial, text, { mode: 0o600, flag: 'wx' });
    chmodSync(partial, 0o600);
    renameSync(partial, path);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}

/** A database file about to be opened: its folder, itself and any sidecars already there. */
export function preparePrivateDatabase(path: string): void {
  ensurePrivateDir(dirname(path));
  ensurePrivateFile(path);
  for (const suffix of SIDECARS) if (existsSync(path + suffix)) chmodSync(path + suffix, 0o600);
}

/**
 * The path with symbolic links resolved: of the file when it exists, else of its folder, so
 * two spellings of one database (a symlink, `..`) name the same lock.
 */
export function realPath(path: string): string {
  if (existsSync(path)) return realpathSync(path);
  // A link to a file not created yet.
  const link = lstatSync(path, { throwIfNoEntry: false });
  if (link?.isSymbolicLink() === true) return realPath(resolve(dirname(path), readlinkSync(path)));
  const dir = dirname(path);
  return existsSync(dir) ? join(realpathSync(dir), basename(path)) : path;
}
