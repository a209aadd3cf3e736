import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePrivateDir } from './private-files.js';

// A first start on an empty data directory begins with a prepared database instead of an empty
// one: dist/first-start.sqlite, written by the build (scripts/first-start-image.mjs) with every
// migration applied and the built-in catalogue loaded, by the same code a start runs. Copying
// its 3 MB takes milliseconds; running the migrations and computing the catalogue took most of a
// first start. The image is only ever the one the build wrote beside this bundle, so its
// catalogue JSON is this build's and a start from it skips the encoder check (whose fingerprint
// alone costs more than the rest of such a start). The migrations still run after the copy, and
// find nothing to do.

/** The image beside the bundle; none when running from the sources or tsc's output. */
export function bundledFirstStartImage(): string | undefined {
  const here = fileURLToPath(import.meta.url);
  if (basename(here) !== 'esim.cjs') return undefined;
  const image = join(dirname(here), 'first-start.sqlite');
  return existsSync(image) ? image : undefined;
}

const SIDECARS = ['-wal', '-shm', '-journal'];

/**
 * Puts a copy of `image` at `path` when there is no database there yet (nor any of its
 * sidecars). The copy is written 0600 beside it and linked into place, so a reader never sees a
 * partial file and a database created meanwhile by another process is never replaced. Returns
 * whether the copy is the database now.
 */
export function copyFirstStartImage(image: string, path: string): boolean {
  if ([path, ...SIDECARS.map((s) => path + s)].some((p) => existsSync(p))) return false;
  ensurePrivateDir(dirname(path));
  const partial = join(
    dirname(path),
    `.${basename(path)}.${randomBytes(6).toString('hex')}.partial`,
  );
  try {
    writeFileSync(partial, readFileSync(image), { mode: 0o600, flag: 'wx' });
    linkSync(partial, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(partial, { force: true });
  }
}
