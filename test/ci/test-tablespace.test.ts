import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { describe, it } from 'node:test';
import pg from 'pg';
import { DATABASES } from '../harness.js';
import { POSTGRES_ADMIN_URL, freshDatabase } from '../databases.js';
import {
  dropAbandonedTablespaces,
  dropTablespace,
  holdRunLock,
  memoryTablespace,
  // @ts-expect-error: the runner's helper is plain JavaScript, without types.
} from '../../scripts/test-tablespace.mjs';

// The runner puts the run's PostgreSQL databases in a tablespace in memory when it can
// (scripts/test-tablespace.mjs; README, "How the suite runs").

interface Space {
  name: string;
  dir: string;
}

async function locationOf(database: string): Promise<string> {
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ location: string }>(
      `select pg_tablespace_location(dattablespace) as location
       from pg_database where datname = $1`,
      [database],
    );
    assert.equal(rows.length, 1, `database ${database}`);
    return rows[0]?.location ?? '';
  } finally {
    await admin.end();
  }
}

const postgres = DATABASES.includes('postgres');
const runnerSpace = process.env['TEST_POSTGRES_TABLESPACE'];

describe('the test run’s PostgreSQL tablespace', { skip: !postgres && 'no PostgreSQL' }, () => {
  it('is made in /dev/shm for the server on this machine, and dropped with its directory', async (t) => {
    // Held as a run holds it, so that a run starting meanwhile leaves it alone.
    const lock = (await holdRunLock(POSTGRES_ADMIN_URL, `check${process.pid}`)) as pg.Client;
    try {
      const space = (await memoryTablespace(POSTGRES_ADMIN_URL, `check${process.pid}`)) as
        Space | undefined;
      if (space === undefined) {
        t.skip('the server is not on this machine, or its data directory cannot be read here');
        return;
      }
      assert.match(space.dir, /^\/dev\/shm\//);
      assert.ok(statSync(space.dir).isDirectory());
      await dropTablespace(POSTGRES_ADMIN_URL, space);
      assert.equal(existsSync(space.dir), false, 'its directory is removed');
    } finally {
      await lock.end();
    }
  });

  it('left by a killed run, is dropped by the next with its databases; a live run’s is kept', async (t) => {
    const gone = `gone${process.pid}`;
    const alive = `alive${process.pid}`;
    const lock = (await holdRunLock(POSTGRES_ADMIN_URL, alive)) as pg.Client;
    const left = (await memoryTablespace(POSTGRES_ADMIN_URL, gone)) as Space | undefined;
    const kept = (await memoryTablespace(POSTGRES_ADMIN_URL, alive)) as Space | undefined;
    try {
      if (left === undefined || kept === undefined) {
        t.skip('the server is not on this machine, or its data directory cannot be read here');
        return;
      }
      const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await admin.connect();
      const database = `esim_left_${process.pid}`;
      try {
        await admin.query(`create database ${database} tablespace ${left.name}`);
        // Only this test's two tablespaces: other runs' are theirs.
        const dropped = await dropAbandonedTablespaces(
          POSTGRES_ADMIN_URL,
          `esim\\_space\\_%${process.pid}`,
        );
        assert.deepEqual(dropped, [left.name]);
        const spaces = await admin.query<{ spcname: string }>(
          'select spcname from pg_tablespace where spcname = any($1) order by spcname',
          [[left.name, kept.name]],
        );
        assert.deepEqual(
          spaces.rows.map((r) => r.spcname),
          [kept.name],
        );
        const databases = await admin.query('select 1 from pg_database where datname = $1', [
          database,
        ]);
        assert.equal(databases.rowCount, 0, 'its database is dropped');
        assert.equal(existsSync(left.dir), false, 'its directory is removed');
        assert.ok(existsSync(kept.dir), 'the live run’s directory is kept');
      } finally {
        await admin.query(`drop database if exists ${database}`);
        await admin.end();
      }
    } finally {
      await dropTablespace(POSTGRES_ADMIN_URL, left);
      await dropTablespace(POSTGRES_ADMIN_URL, kept);
      await lock.end();
    }
  });

  it('holds the databases the tests make, under the runner', async (t) => {
    if (runnerSpace === undefined || runnerSpace === 'none') {
      t.skip('not under the runner, or the runner made no tablespace');
      return;
    }
    const database = await freshDatabase('postgres', 'seeded');
    try {
      const target = database.target;
      assert.ok(target.kind === 'postgres');
      const location = await locationOf(new URL(target.url).pathname.slice(1));
      assert.match(location, /^\/dev\/shm\/esim-test-/);
    } finally {
      await database.drop();
    }
  });

  it('is not used for a URL that names another machine', async () => {
    const remote = new URL(POSTGRES_ADMIN_URL);
    remote.hostname = 'db.invalid';
    assert.equal(await memoryTablespace(remote.toString(), `remote${process.pid}`), undefined);
  });
});
