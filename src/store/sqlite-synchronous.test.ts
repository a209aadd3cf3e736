import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../config.js';
import { openServices } from '../main.js';

// SQLITE_SYNCHRONOUS sets when a commit of the service's SQLite connection reaches the disk:
// SQLite's `synchronous` is 1 (NORMAL: the WAL is synced at checkpoints) or 2 (FULL: at every
// commit, before the writes of that commit are acknowledged).

describe('SQLITE_SYNCHRONOUS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'esim-synchronous-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  const synchronousOf = async (env: Record<string, string>): Promise<number> => {
    const config = loadConfig({
      DATABASE_URL: `sqlite:${join(dir, `${Object.values(env).join('-') || 'default'}.sqlite`)}`,
      DATA_DIR: dir,
      DEMO_ON_FIRST_START: 'false',
      CATALOGUE_SEED: 'false',
      ...env,
    });
    const services = await openServices(config);
    try {
      const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(
        services.deps.store.db,
      );
      return Number(rows[0]?.synchronous);
    } finally {
      await services.close();
    }
  };

  it('is NORMAL by default and FULL when set to full', async () => {
    assert.equal(await synchronousOf({}), 1);
    assert.equal(await synchronousOf({ SQLITE_SYNCHRONOUS: 'normal' }), 1);
    assert.equal(await synchronousOf({ SQLITE_SYNCHRONOUS: 'full' }), 2);
  });
});
