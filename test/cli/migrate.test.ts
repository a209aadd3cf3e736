import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { esim, scratchDir } from './helpers.js';

// `esim migrate` and `esim serve` with PostgreSQL out of reach (nothing listens at its address):
// each stops with exit 1 and one line that says no migration was applied and why, never the
// password of DATABASE_URL, and not a line that reads as a broken migration.

/** A port on this host where nothing listens: every connection is refused. */
async function refusingPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('migrations with the database out of reach', () => {
  const dir = scratchDir();
  after(() => dir.remove());

  for (const command of ['migrate', 'serve']) {
    it(`esim ${command} says the database could not be opened, not that a migration failed`, async () => {
      const env = {
        MODE: 'production',
        DATABASE_URL: `postgres://esim:s3cret-pw@127.0.0.1:${await refusingPort()}/esim`,
        MASTER_KEY: 'ab'.repeat(32),
        DATA_DIR: dir.path,
        PORT: '0',
        LOG_LEVEL: 'silent',
      };
      const result = await esim(env, command);
      assert.equal(result.code, 1, result.out);
      assert.match(
        result.err,
        /^esim: could not open the database to migrate it \(no migration was applied\): could not connect to PostgreSQL: .*ECONNREFUSED/,
      );
      assert.equal(result.err.split('\n').length, 1, result.err);
      assert.doesNotMatch(result.err, /s3cret-pw|unknown/);
    });
  }
});
