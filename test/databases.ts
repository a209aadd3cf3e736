import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { OffsetClock, iso } from '../src/clock.js';
import type { DatabaseTarget } from '../src/config.js';
import { seedBuiltInCatalogue } from '../src/domain/catalogue/seed.js';
import { migrate, openStore } from '../src/store/database.js';

// Every store and route suite runs on each database here: the embedded one always, PostgreSQL
// whenever it is reachable. In CI (CI=true) an unreachable PostgreSQL fails the run instead of
// being skipped, so the PostgreSQL suite cannot silently disappear.

export type DatabaseKind = 'sqlite' | 'postgres';

export const POSTGRES_ADMIN_URL =
  process.env['TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function connectsOnce(): Promise<boolean> {
  const client = new pg.Client({
    connectionString: POSTGRES_ADMIN_URL,
    connectionTimeoutMillis: 5000,
  });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

// A busy machine can take seconds to accept a connection: a server counts as unreachable only
// after three attempts, a second apart.
async function postgresReachable(): Promise<boolean> {
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    if (await connectsOnce()) return true;
    if (attempt < 3) await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return false;
}

const reachable = await postgresReachable();
if (!reachable) {
  const line = '!'.repeat(78);
  const message = `${line}\n!! PostgreSQL at ${POSTGRES_ADMIN_URL} is not reachable: the PostgreSQL suites are SKIPPED.\n${line}`;
  if (process.env['CI'] === 'true') throw new Error(`${message}\nCI requires PostgreSQL.`);
  process.stderr.write(message + '\n');
}

// TEST_DATABASES=sqlite (npm run test:quick) runs the embedded database only.
export const DATABASES: readonly DatabaseKind[] =
  process.env['TEST_DATABASES'] === 'sqlite' || !reachable ? ['sqlite'] : ['sqlite', 'postgres'];

// The run's databases are named after it (TEST_RUN_ID, set by scripts/test.mjs), so that the
// runner can drop whatever a test process that died left behind.
const RUN = (process.env['TEST_RUN_ID'] ?? randomBytes(4).toString('hex')).replace(/\W/g, '');
/** Under the runner, its worker processes share the templates, which it drops at the end. */
const SHARED_TEMPLATES = process.env['TEST_RUN_ID'] !== undefined;
// The runner gives the run a tablespace in memory when the server is on this machine
// (scripts/test.mjs): the databases are made there, as the SQLite ones are in memory.
const TABLESPACE = process.env['TEST_POSTGRES_TABLESPACE'] ?? 'none';
const IN_TABLESPACE = TABLESPACE === 'none' ? '' : ` tablespace ${TABLESPACE}`;

/**
 * What a new database holds: nothing, every migration, or every migration and the built-in
 * catalogue (what a service's first start leaves). The last two are copies of a template made
 * once per process, not migrated and seeded again for each test.
 */
export type DatabaseStart = 'empty' | 'migrated' | 'seeded';

async function prepare(target: DatabaseTarget, start: DatabaseStart): Promise<void> {
  const store = openStore(target, { poolSize: 2 });
  try {
    await migrate(store);
    if (start === 'seeded') await seedBuiltInCatalogue(store.db, iso(new OffsetClock().now()));
  } finally {
    await store.close();
  }
}

const sqliteImages = new Map<DatabaseStart, Promise<Buffer>>();

/** A serialised SQLite database as `start` says, for an in-memory database to start from. */
export function sqliteImage(start: Exclude<DatabaseStart, 'empty'>): Promise<Buffer> {
  let image = sqliteImages.get(start);
  if (image === undefined) {
    image = (async () => {
      const dir = mkdtempSync(join(tmpdir(), 'esim-template-'));
      try {
        const path = join(dir, 'template.sqlite');
        await prepare({ kind: 'sqlite', path }, start);
        const file = new SQLite(path);
        // An in-memory database cannot start from an image in WAL mode.
        file.pragma('journal_mode = DELETE');
        const bytes = file.serialize();
        file.close();
        return bytes;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    })();
    sqliteImages.set(start, image);
  }
  return image;
}

async function withAdmin<T>(run: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  try {
    return await run(admin);
  } finally {
    await admin.end();
  }
}

function postgresUrl(name: string): string {
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

// pg's Pool.end() resolves before its sockets have closed; a database is copied or dropped only
// once they have gone (bounded wait): dropping it with them open makes the server send them a
// FATAL error that surfaces as an uncaught exception in the test process.
async function untilUnused(admin: pg.Client, name: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const { rows } = await admin.query<{ n: string }>(
      'select count(*) as n from pg_stat_activity where datname = $1',
      [name],
    );
    if (Number(rows[0]?.n ?? 0) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const postgresTemplates = new Map<DatabaseStart, Promise<string>>();

let strategy: Promise<string> | undefined;
/**
 * PostgreSQL 15 and later copy a template through the write-ahead log by default: a 17 MB
 * template made and dropped cost the server 83 ms of processor a database that way, 46 ms copying
 * its files (bench/test-suite.md); the files are copied where the server knows how.
 */
function copyStrategy(): Promise<string> {
  strategy ??= withAdmin(async (admin) => {
    const { rows } = await admin.query<{ v: string }>('show server_version_num');
    return Number(rows[0]?.v ?? 0) >= 150_000 ? ' strategy file_copy' : '';
  });
  return strategy;
}

/** A new database made as `start` says, under its own name. */
async function preparedPostgres(name: string, start: Exclude<DatabaseStart, 'empty'>) {
  await withAdmin((admin) => admin.query(`create database ${name}${IN_TABLESPACE}`));
  await prepare({ kind: 'postgres', url: postgresUrl(name) }, start);
  await withAdmin((admin) => untilUnused(admin, name));
}

/**
 * The database that new ones of `start` are copied from. Under the runner, one per run, shared
 * by its worker processes: the first to need it makes it under a name of its own and renames it
 * when it is whole, holding a lock that the others wait on.
 */
function postgresTemplate(start: Exclude<DatabaseStart, 'empty'>): Promise<string> {
  let template = postgresTemplates.get(start);
  if (template === undefined) {
    template = (async () => {
      const own = `esim_template_${RUN}_${start}_${randomBytes(4).toString('hex')}`;
      if (!SHARED_TEMPLATES) {
        await preparedPostgres(own, start);
        cleanups.push(() => dropPostgres(own));
        return own;
      }
      const shared = `esim_template_${RUN}_${start}`;
      await withAdmin(async (admin) => {
        await admin.query('select pg_advisory_lock(hashtext($1))', [shared]);
        const found = await admin.query('select 1 from pg_database where datname = $1', [shared]);
        if (found.rowCount === 0) {
          await preparedPostgres(own, start);
          await admin.query(`alter database ${own} rename to ${shared}`);
        }
        // The lock ends with the session.
      });
      return shared;
    })();
    postgresTemplates.set(start, template);
  }
  return template;
}

async function dropPostgres(name: string): Promise<void> {
  await withAdmin(async (admin) => {
    await untilUnused(admin, name);
    await admin.query(`drop database if exists ${name} with (force)`);
  });
}

// A process's own templates are dropped when it ends: when its event loop empties (a file run on
// its own), or by scripts/test-worker.mjs before it exits; the runner drops the run's shared
// templates, and whatever a killed process left, by the run's name.
const cleanups: (() => Promise<void>)[] = [];
const drops = new Set<Promise<void>>();
async function cleanUp(): Promise<void> {
  await Promise.all(drops);
  const all = cleanups.splice(0);
  await Promise.all(all.map((clean) => clean().catch(() => undefined)));
}
process.once('beforeExit', () => void cleanUp());
const registry = globalThis as { [key: symbol]: (() => Promise<void>)[] | undefined };
(registry[Symbol.for('esim.test.cleanups')] ??= []).push(cleanUp);

export interface TestDatabase {
  readonly target: DatabaseTarget;
  /** SQLite: the serialised database the in-memory one starts from. */
  readonly image?: Buffer;
  drop(): Promise<void>;
}

/**
 * A new database of the given kind, empty unless `start` says otherwise; drop() removes it.
 * SQLite: an in-memory database (an `image` to open it from when not empty).
 */
export async function freshDatabase(
  kind: DatabaseKind,
  start: DatabaseStart = 'empty',
): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    return {
      target: { kind: 'sqlite', path: ':memory:' },
      ...(start === 'empty' ? {} : { image: await sqliteImage(start) }),
      drop: async () => undefined,
    };
  }
  const template = start === 'empty' ? undefined : await postgresTemplate(start);
  const name = `esim_test_${RUN}_${randomBytes(6).toString('hex')}`;
  const copy = template === undefined ? '' : ` template ${template}${await copyStrategy()}`;
  await withAdmin((admin) => admin.query(`create database ${name}${copy}${IN_TABLESPACE}`));
  return {
    target: { kind: 'postgres', url: postgresUrl(name) },
    // PostgreSQL checkpoints for each database dropped (seconds on a busy machine): the drop goes
    // on in the background, and the process waits for every drop before it ends.
    drop: async () => {
      const dropping = dropPostgres(name).catch(() => undefined);
      drops.add(dropping);
      void dropping.finally(() => drops.delete(dropping));
    },
  };
}
