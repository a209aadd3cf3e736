// Each run of growth.ts, esim-delete.ts, callback-lag.ts and orders.ts (orders-load.ts) measures
// a database of its own, made here and thrown away at the end: its figures then never depend on
// what an earlier run left in a shared database, and it leaves nothing behind for the next.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import type { DatabaseTarget } from '../src/config.js';
import type { Db } from '../src/store/database.js';

/** Where new PostgreSQL databases are created: an admin URL. */
const BENCH_POSTGRES_URL =
  process.env['BENCH_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface ScratchDatabase {
  /** The database as DATABASE_URL names it. */
  readonly url: string;
  readonly target: DatabaseTarget;
  /** A new folder: the SQLite file's, and a DATA_DIR for a service on either database. */
  readonly dir: string;
  /** Its size now: SQLite's file after a WAL checkpoint, PostgreSQL's pg_database_size. */
  bytes(db: Db): Promise<number>;
  /** Removes the database and the folder. */
  drop(): Promise<void>;
  /** Leaves the database in place, to look into afterwards, and says where it is. */
  keep(): string;
}

async function admin(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(statement);
  await client.end();
}

/**
 * A new, empty database: a SQLite file when `kind` is 'sqlite', a PostgreSQL database on
 * `adminUrl` otherwise. `name` ([a-z0-9_]) tells one benchmark's databases and folders from
 * another's.
 */
export async function scratchDatabase(
  kind: string,
  name: string,
  adminUrl: string = BENCH_POSTGRES_URL,
): Promise<ScratchDatabase> {
  const folder = () => mkdtempSync(join(tmpdir(), `esim-bench-${name}-`));
  if (kind === 'sqlite') {
    const dir = folder();
    const path = join(dir, `${name}.sqlite`);
    return {
      url: `sqlite:${path}`,
      target: { kind: 'sqlite', path },
      dir,
      async bytes(db) {
        await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
        return statSync(path).size;
      },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
      keep: () => path,
    };
  }
  const database = `esim_bench_${name}_${randomBytes(6).toString('hex')}`;
  await admin(adminUrl, `create database ${database}`);
  const address = new URL(adminUrl);
  address.pathname = `/${database}`;
  const url = address.toString();
  const dir = folder();
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  return {
    url,
    target: { kind: 'postgres', url },
    dir,
    async bytes(db) {
      const r = await sql<{ n: string }>`select pg_database_size(current_database()) as n`.execute(
        db,
      );
      return Number(r.rows[0]?.n ?? 0);
    },
    async drop() {
      await admin(adminUrl, `drop database if exists ${database} with (force)`);
      removeDir();
    },
    keep() {
      removeDir();
      return url;
    },
  };
}

/**
 * The end of a run: drops the database, or with BENCH_KEEP_DATABASE=1 keeps it, to look into,
 * and returns the line that says where it is.
 */
export async function dropUnlessKept(database: ScratchDatabase): Promise<string | undefined> {
  if (process.env['BENCH_KEEP_DATABASE'] !== '1') {
    await database.drop();
    return undefined;
  }
  return `database kept (BENCH_KEEP_DATABASE=1): ${database.keep()}`;
}
