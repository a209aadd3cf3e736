import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
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
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A test file that tells where its run's databases go, then waits until it is stopped. */
const HOLDING = `import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
test('holds', () => {
  writeFileSync(process.env.HOLD_MARKER, process.env.TEST_POSTGRES_TABLESPACE ?? 'none');
  return new Promise(() => undefined);
});
`;

/** Whether a tablespace of this name exists. */
async function tablespaceExists(name: string): Promise<boolean> {
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('select 1 from pg_tablespace where spcname = $1', [
      name,
    ]);
    return rowCount === 1;
  } finally {
    await admin.end();
  }
}
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

  it('is dropped with the run’s databases when the run is stopped with Ctrl-C', async (t) => {
    // The runner on a tree of one test file that holds, as from a shell (no NODE_TEST_CONTEXT).
    const dir = await mkdtemp(join(tmpdir(), 'esim-runner-stop-'));
    try {
      await symlink(join(root, 'scripts'), join(dir, 'scripts'));
      await symlink(join(root, 'node_modules'), join(dir, 'node_modules'));
      for (const folder of ['src', 'packages/client/src', 'dist', 'test'])
        await mkdir(join(dir, folder), { recursive: true });
      await writeFile(join(dir, 'tsconfig.build.json'), '{}');
      await writeFile(join(dir, 'dist', 'esim.js'), ''); // built after the (no) sources
      await writeFile(join(dir, 'test', 'hold.test.ts'), HOLDING);
      const marker = join(dir, 'started');
      const env: NodeJS.ProcessEnv = { ...process.env, HOLD_MARKER: marker, TEST_CONCURRENCY: '1' };
      delete env['NODE_TEST_CONTEXT'];
      delete env['TEST_POSTGRES_TABLESPACE'];
      const runner = spawn(process.execPath, ['scripts/test.mjs'], {
        cwd: dir,
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let errors = '';
      runner.stderr.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
      const exited = once(runner, 'close'); // after its stderr's last words
      // Progress, not time: the held test has written where the run's databases go.
      let space = '';
      while (space === '') {
        if (runner.exitCode !== null) assert.fail(`the runner ended first (${runner.exitCode})`);
        space = await readFile(marker, 'utf8').catch(() => '');
        if (space === '') await new Promise((r) => setTimeout(r, 20));
      }
      if (space === 'none') {
        runner.kill('SIGINT');
        await exited;
        t.skip('the runner made no tablespace here');
        return;
      }
      assert.ok(await tablespaceExists(space), `${space} while the run goes on`);
      runner.kill('SIGINT');
      const [code] = await exited;
      assert.equal(code, 1, 'a stopped run fails');
      assert.equal(await tablespaceExists(space), false, `${space} is dropped; ${errors}`);
      assert.equal(existsSync(`/dev/shm/esim-test-${space.replace('esim_space_', '')}`), false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
