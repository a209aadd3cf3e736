import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openStore } from '../../src/store/database.js';
import { migrate } from '../../src/store/database.js';
import { DatabaseInUseError, takeServerLock } from '../../src/store/server-lock.js';
import { copyLiveDatabase } from '../../src/store/sqlite-files.js';

// The SQLite database holds secrets: with the usual umask 022 the database, its WAL and SHM,
// the server lock and every backup are 0600, in a data folder created 0700. And the one-server
// lock is taken on the real path, so a symlink to a live database cannot start a second server.

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);

describe('private database files', () => {
  const root = mkdtempSync(join(tmpdir(), 'esim-private-'));
  const previous = process.umask(0o022);
  after(() => {
    process.umask(previous);
    rmSync(root, { recursive: true, force: true });
  });

  it('creates the database, WAL, SHM, lock and backups 0600 in a 0700 folder', async () => {
    const dir = join(root, 'data');
    const path = join(dir, 'esim.sqlite');
    const lock = takeServerLock({ kind: 'sqlite', path });
    const store = openStore({ kind: 'sqlite', path });
    try {
      await migrate(store);
      assert.equal(mode(dir), '700');
      for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}.lock`]) {
        assert.equal(mode(file), '600', file);
      }
      const backups = join(root, 'backups');
      const backup = join(backups, 'esim-1.sqlite');
      copyLiveDatabase(path, backup);
      assert.equal(mode(backup), '600');
      assert.equal(mode(backups), '700');
    } finally {
      await store.close();
      lock?.release();
    }
  });

  it('takes the server lock on the real path: a symlink meets the same lock', () => {
    const dir = join(root, 'real');
    const path = join(dir, 'esim.sqlite');
    const first = takeServerLock({ kind: 'sqlite', path });
    const alias = join(root, 'alias.sqlite');
    symlinkSync(path, alias);
    try {
      assert.throws(() => takeServerLock({ kind: 'sqlite', path: alias }), DatabaseInUseError);
      const linkedDir = join(root, 'linked-dir');
      symlinkSync(dir, linkedDir);
      assert.throws(
        () => takeServerLock({ kind: 'sqlite', path: join(linkedDir, 'esim.sqlite') }),
        DatabaseInUseError,
      );
    } finally {
      first?.release();
    }
  });
});
