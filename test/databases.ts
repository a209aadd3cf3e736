import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { DatabaseTarget } from '../src/config.js';

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

export const DATABASES: readonly DatabaseKind[] = reachable ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestDatabase {
  readonly target: DatabaseTarget;
  drop(): Promise<void>;
}

/** A fresh, empty database of the given kind; drop() removes it. */
export async function freshDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  if (kind === 'sqlite')
    return { target: { kind: 'sqlite', path: ':memory:' }, drop: async () => undefined };
  const name = `esim_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    target: { kind: 'postgres', url: url.toString() },
    async drop() {
      const c = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await c.connect();
      // pg's Pool.end() resolves before its sockets have closed; forcing the drop while they
      // close makes the server send them a FATAL error that surfaces as an uncaught exception
      // in the test process. Wait (bounded) for them to go first.
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline) {
        const { rows } = await c.query<{ n: string }>(
          'select count(*) as n from pg_stat_activity where datname = $1',
          [name],
        );
        if (Number(rows[0]?.n ?? 0) === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
