import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { DATABASES } from '../databases.js';
import { cliDatabase, esim, spawnEsim } from './helpers.js';
import type { Env } from './helpers.js';

// Production never loads the simulator's tools: a start in production mode that names a fixture
// file (SEED_FILE), seeded identifiers (SIM_SEED), the /_sim control plane (SIM_ADMIN_TOKEN), the
// demo organisation or the built-in test card processor (PAYMENT_GATEWAY=test) stops at once with exit 78 naming the setting, before the database is
// opened: not even the migrations run. The repository's example fixture publishes its keys and
// passwords, so loading it would open a production database to anyone who read it.

const SEED = fileURLToPath(new URL('../fixtures/seed.json', import.meta.url));
const MASTER_KEY = 'ab'.repeat(32);

/** Starts `esim serve`; a server that comes up instead of refusing is stopped and fails. */
async function refusedStart(env: Env): Promise<{ code: number | null; stderr: string }> {
  const run = spawnEsim(env, 'serve');
  const listening = new Promise<'listening'>((resolve) => {
    run.child.stdout?.on('data', () => {
      if (/listening on/.test(run.stdout())) resolve('listening');
    });
  });
  const outcome = await Promise.race([run.exited, listening]);
  if (outcome === 'listening') {
    run.child.kill('SIGTERM');
    await run.exited;
    assert.fail(`production started with ${Object.keys(env).join(', ')}:\n${run.stdout()}`);
  }
  return { code: outcome, stderr: run.stderr() };
}

/**
 * The migration records of the database at `url`: `forget` deletes the newest's (and returns its
 * name), `newest` returns the newest's name, `restore` puts back the record of `name`.
 */
async function migrations(
  url: string,
  what: 'forget' | 'newest' | 'restore',
  name = '',
): Promise<string> {
  const run = async (query: (text: string, params: unknown[]) => Promise<unknown[]>) => {
    const rows = await query('select max(name) as name from kysely_migration', []);
    const newest = String((rows as { name: string }[])[0]?.name);
    if (what === 'forget') {
      await query('delete from kysely_migration where name = $1', [newest]);
    } else if (what === 'restore') {
      const at = new Date().toISOString();
      await query('insert into kysely_migration (name, timestamp) values ($1, $2)', [name, at]);
    }
    return newest;
  };
  if (url.startsWith('sqlite:')) {
    const db = new SQLite(url.slice('sqlite:'.length));
    try {
      return await run(async (text, params) => {
        const statement = db.prepare(text.replace(/\$\d/g, '?'));
        if (statement.reader) return statement.all(...params);
        statement.run(...params);
        return [];
      });
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(async (text, params) => (await client.query(text, params)).rows);
  } finally {
    await client.end();
  }
}

async function tablesIn(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      "select count(*) as n from information_schema.tables where table_schema = 'public'",
    );
    return Number(rows[0]?.n ?? -1);
  } finally {
    await client.end();
  }
}

for (const kind of DATABASES) {
  describe(`production refuses the simulator's tools [${kind}]`, () => {
    let database: Awaited<ReturnType<typeof cliDatabase>>;
    let env: Env;

    before(async () => {
      database = await cliDatabase(kind, 'empty');
      // A file that does not exist yet: the refusal must not create it.
      const url = String(database.env['DATABASE_URL']).replace(
        /^sqlite:.*$/,
        `sqlite:${join(String(database.env['DATA_DIR']), 'prod', 'esim.sqlite')}`,
      );
      env = {
        MODE: 'production',
        MASTER_KEY,
        DATABASE_URL: url,
        DATA_DIR: String(database.env['DATA_DIR']),
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      };
    });
    after(() => database.dispose());

    const unchanged = async (): Promise<void> => {
      const url = String(env['DATABASE_URL']);
      if (url.startsWith('sqlite:')) assert.equal(existsSync(url.slice('sqlite:'.length)), false);
      else assert.equal(await tablesIn(url), 0, 'no table was created');
    };

    it('refuses SEED_FILE (exit 78, naming it) and leaves the database untouched', async () => {
      const { code, stderr } = await refusedStart({ ...env, SEED_FILE: SEED });
      assert.equal(code, 78, stderr);
      assert.match(
        stderr.trim(),
        /^esim: configuration error: SEED_FILE: is a simulator tool, refused in production mode: .+; unset it$/,
      );
      await unchanged();
    });

    it('refuses SIM_SEED, SIM_ADMIN_TOKEN, DEMO_ON_FIRST_START=true and PAYMENT_GATEWAY=test the same way', async () => {
      const refusals = await Promise.all(
        [
          ['SIM_SEED', '7'],
          ['SIM_ADMIN_TOKEN', 'secret'],
          ['DEMO_ON_FIRST_START', 'true'],
          ['PAYMENT_GATEWAY', 'test'],
        ].map(async ([key = '', value = '']) => ({
          key,
          ...(await refusedStart({ ...env, [key]: value })),
        })),
      );
      for (const { key, code, stderr } of refusals) {
        assert.equal(code, 78, `${key}: ${stderr}`);
        assert.match(
          stderr,
          new RegExp(`^esim: configuration error: ${key}: (test )?is a simulator tool`),
        );
        assert.doesNotMatch(stderr, /secret/, 'the token is not echoed');
      }
      await unchanged();
    });

    it('records a database that has run in production, which the simulator then refuses to open (exit 78) before it makes a master key', async () => {
      const dataDir = String(env['DATA_DIR']);
      const ran = await esim(env, 'org', 'list');
      assert.equal(ran.code, 0, ran.err);
      // The newest migration forgotten, as for a database behind the shell's checkout: the
      // simulator must refuse before it would migrate.
      const url = String(env['DATABASE_URL']);
      const newest = await migrations(url, 'forget');
      const withoutKey = Object.fromEntries(
        Object.entries(env).filter(([name]) => name !== 'MASTER_KEY'),
      );
      const forgot = await esim({ ...withoutKey, MODE: 'simulator' }, 'org', 'list');
      assert.equal(forgot.code, 78, forgot.err);
      assert.match(
        forgot.err,
        /^esim: configuration error: MODE: this database is a production service's .*set MODE=production/,
      );
      assert.equal(existsSync(join(dataDir, 'master.key')), false, 'no master key was made');
      const migrating = await esim({ ...withoutKey, MODE: 'simulator' }, 'migrate');
      assert.equal(migrating.code, 78, migrating.err);
      assert.notEqual(await migrations(url, 'newest'), newest, 'no migration ran');
      await migrations(url, 'restore', newest);
      const again = await esim(env, 'org', 'list');
      assert.equal(again.code, 0, again.err);
    });

    it('records it when production migrates a new database with esim migrate', async () => {
      const fresh = await cliDatabase(kind, 'empty');
      try {
        const production = { ...env, DATABASE_URL: String(fresh.env['DATABASE_URL']) };
        const migrated = await esim(production, 'migrate');
        assert.equal(migrated.code, 0, migrated.err);
        const simulator = { ...fresh.env, MODE: 'simulator' };
        const refused = await esim(simulator, 'org', 'list');
        assert.equal(refused.code, 78, refused.err);
        assert.match(refused.err, /MODE: this database is a production service's/);
      } finally {
        await fresh.dispose();
      }
    });
  });
}
