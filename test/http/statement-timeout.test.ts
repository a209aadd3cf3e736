import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { migrate, openStore } from '../../src/store/database.js';
import { freshDatabase } from '../databases.js';
import { FR_1MB, seedTestBundles } from '../esim-fixtures.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// PostgreSQL ends a statement that runs past DATABASE_STATEMENT_TIMEOUT_MS, a wait for a row lock
// included, and a session idle inside its transaction past it: a session that holds an
// organisation's row (a stuck instance, an operator's open psql transaction) makes that
// organisation's order a 503 database_busy after the timeout, nothing written, instead of holding
// the request and its connection for as long as the lock lasts. Migrations are not bound by it.

const TIMEOUT_MS = 400;
/** The migrator's lock: Kysely's PostgreSQL adapter takes this advisory lock while it migrates. */
const MIGRATION_LOCK = '3853314791062309107';

describe(
  'PostgreSQL: DATABASE_STATEMENT_TIMEOUT_MS [postgres]',
  { skip: !DATABASES.includes('postgres') },
  () => {
    let t: TestApp;
    let org: TestOrg;
    let admin: pg.Client;

    before(async () => {
      t = await startTestApp('postgres', { databaseStatementTimeoutMs: TIMEOUT_MS });
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 10_000 });
      const target = t.config.database;
      assert.ok(target.kind === 'postgres');
      admin = new pg.Client({ connectionString: target.url });
      await admin.connect();
    });
    after(async () => {
      await admin.end();
      await t.close();
    });

    const order = () =>
      t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: {
          type: 'transaction',
          order: [{ type: 'bundle', item: FR_1MB.name, quantity: 1 }],
        },
      });
    const balance = async () => {
      const { rows } = await admin.query<{ balance: string }>(
        'select balance from organisations where id = $1',
        [org.id],
      );
      return Number(rows[0]?.balance);
    };

    it('answers 503 database_busy once a lock wait outlasts the timeout, nothing written, and orders again once the lock is gone', async () => {
      const before = await balance();
      await admin.query('begin');
      await admin.query('select 1 from organisations where id = $1 for update', [org.id]);
      const started = performance.now();
      let busy;
      try {
        busy = await order();
      } finally {
        await admin.query('rollback');
      }
      assert.equal(busy.statusCode, 503, busy.body);
      assert.equal(busy.headers['retry-after'], '1');
      assert.equal(busy.json<{ code: string }>().code, 'database_busy');
      // The server ended the wait; it did not last as long as the lock would have.
      assert.ok(performance.now() - started >= TIMEOUT_MS);
      assert.equal(await balance(), before, 'nothing was charged');

      const ordered = await order();
      assert.equal(ordered.statusCode, 200, ordered.body);
      assert.ok((await balance()) < before);
    });

    it('ends a session left idle inside its transaction', async () => {
      const idle = new pg.Client({
        connectionString: (t.config.database as { url: string }).url,
        idle_in_transaction_session_timeout: TIMEOUT_MS,
      });
      await idle.connect();
      const ended = new Promise<unknown>((resolve) => idle.once('error', resolve));
      await idle.query('begin');
      await idle.query('select 1 from organisations where id = $1 for update', [org.id]);
      const error = (await ended) as { code?: string };
      assert.equal(error.code, '25P03');
      await idle.end().catch(() => undefined);
      // The lock went with the session: the organisation orders at once.
      const ordered = await order();
      assert.equal(ordered.statusCode, 200, ordered.body);
    });

    it("waits for another instance's migration past the timeout, and gives the pool its connection back with the timeout", async () => {
      const database = await freshDatabase('postgres', 'empty');
      assert.ok(database.target.kind === 'postgres');
      const other = new pg.Client({ connectionString: database.target.url });
      await other.connect();
      // Another instance migrating holds the migrator's lock (Kysely's advisory lock).
      await other.query(`select pg_advisory_lock(${MIGRATION_LOCK})`);
      const store = openStore(database.target, { poolSize: 1, statementTimeoutMs: TIMEOUT_MS });
      try {
        const migrating = migrate(store);
        migrating.catch(() => undefined);
        for (;;) {
          const { rows } = await other.query<{ n: number }>(
            "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
          );
          if ((rows[0]?.n ?? 0) > 0) break;
          await new Promise((resolve) => setImmediate(resolve));
        }
        // Waiting longer than a statement may run elsewhere: the server would have ended it by now.
        await new Promise((resolve) => setTimeout(resolve, 2 * TIMEOUT_MS));
        await other.query(`select pg_advisory_unlock(${MIGRATION_LOCK})`);
        assert.ok((await migrating).length > 0);
        // One connection: the read after the migrations has the one they ran on.
        const shown = await sql<{
          statement: string;
          idle: string;
        }>`select current_setting('statement_timeout') as statement, current_setting('idle_in_transaction_session_timeout') as idle`.execute(
          store.db,
        );
        assert.deepEqual(shown.rows[0], { statement: `${TIMEOUT_MS}ms`, idle: `${TIMEOUT_MS}ms` });
      } finally {
        await other.end();
        await store.close();
        await database.drop();
      }
    });
  },
);
