import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openStore } from '../../src/store/database.js';
import { DATABASES, POSTGRES_ADMIN_URL } from '../databases.js';
import { cliDatabase, esim, scratchDir } from './helpers.js';

// `esim migrate` and `esim serve` with PostgreSQL out of reach (nothing listens at its address)
// or refusing the login: each stops with exit 1 and one line that says no migration was applied
// and why, never the password of DATABASE_URL, and not a line that reads as a broken migration.
// A database that records a migration this build does not know (migrated by a newer build, then
// rolled back) is refused with no migration applied, and not as a database that cannot be opened.

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

describe(
  'migrations with the login refused',
  {
    skip: DATABASES.includes('postgres')
      ? false
      : 'PostgreSQL is not in this run (unreachable, or TEST_DATABASES=sqlite)',
  },
  () => {
    const dir = scratchDir();
    after(() => dir.remove());
    const env = (url: URL) => ({
      MODE: 'production',
      DATABASE_URL: url.toString(),
      MASTER_KEY: 'ab'.repeat(32),
      DATA_DIR: dir.path,
      PORT: '0',
      LOG_LEVEL: 'silent',
    });

    for (const command of ['migrate', 'serve']) {
      it(`esim ${command} says the database could not be opened when the role does not exist (28000)`, async () => {
        const url = new URL(POSTGRES_ADMIN_URL);
        const role = `esim_no_such_role_${randomBytes(4).toString('hex')}`;
        url.username = role;
        url.password = 's3cret-pw';
        const result = await esim(env(url), command);
        assert.equal(result.code, 1, result.out);
        assert.match(
          result.err,
          new RegExp(
            `^esim: could not open the database to migrate it \\(no migration was applied\\): .*role "${role}" does not exist`,
          ),
        );
        assert.equal(result.err.split('\n').length, 1, result.err);
        assert.doesNotMatch(result.err, /s3cret-pw|unknown/);
      });
    }

    it('esim migrate says the database could not be opened when it does not exist (3D000)', async () => {
      const url = new URL(POSTGRES_ADMIN_URL);
      const name = `esim_missing_${randomBytes(4).toString('hex')}`;
      url.pathname = `/${name}`;
      const result = await esim(env(url), 'migrate');
      assert.equal(result.code, 1, result.out);
      assert.match(
        result.err,
        new RegExp(
          `^esim: could not open the database to migrate it \\(no migration was applied\\): .*database "${name}" does not exist`,
        ),
      );
    });
  },
);

for (const kind of DATABASES) {
  describe(`migrations on a database from a newer build (${kind})`, () => {
    // A rollback: the database records a migration that this build does not have.
    it('esim migrate applies nothing and names the migration it does not know, not a connection failure', async () => {
      const database = await cliDatabase(kind);
      try {
        const url = database.env['DATABASE_URL'] ?? '';
        const store = openStore(
          url.startsWith('sqlite:')
            ? { kind: 'sqlite', path: url.slice('sqlite:'.length) }
            : { kind: 'postgres', url },
        );
        try {
          await sql`insert into kysely_migration (name, timestamp) values ('999-from-a-newer-build', ${new Date().toISOString()})`.execute(
            store.db,
          );
        } finally {
          await store.close();
        }
        const result = await esim(database.env, 'migrate');
        assert.equal(result.code, 1, result.out);
        assert.equal(
          result.err,
          'esim: no migration was applied: corrupted migrations: previously executed migration 999-from-a-newer-build is missing',
        );
      } finally {
        await database.dispose();
      }
    });
  });
}
