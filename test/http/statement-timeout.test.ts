import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RawNode, sql } from 'kysely';
import type { KyselyPlugin } from 'kysely';
import pg from 'pg';
import { migrate, openStore } from '../../src/store/database.js';
import { spawnEsim } from '../cli/helpers.js';
import { freshDatabase } from '../databases.js';
import { seedTestBundles } from '../esim-fixtures.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { activityPause, adminOf, balanceOf, orderOne } from './postgres-orders.js';

// PostgreSQL ends a statement that runs past DATABASE_STATEMENT_TIMEOUT_MS, a wait for a row lock
// included, and a session idle inside its transaction past it: a session that holds an
// organisation's row (a stuck instance, an operator's open psql transaction) makes that
// organisation's order a 503 database_busy after the timeout, nothing written, instead of holding
// the request and its connection for as long as the lock lasts; a transaction of the service's own
// that idles past it (an instance stalled mid-transaction) is ended and answered the same way.
// Migrations are not bound by it.

const TIMEOUT_MS = 400;
/** The migrator's lock: Kysely's PostgreSQL adapter takes this advisory lock while it migrates. */
const MIGRATION_LOCK = '3853314791062309107';

/**
 * When armed, holds the result of the next debit of a balance (the order's first write, inside
 * its transaction) until `until` resolves: the service's session sits idle in its transaction
 * meanwhile.
 */
function stallAfterDebit(until: () => Promise<void>): {
  plugin: KyselyPlugin;
  arm(): void;
} {
  let armed = false;
  let held = false;
  return {
    plugin: {
      transformQuery(args) {
        const node = args.node;
        if (
          armed &&
          RawNode.is(node) &&
          /update organisations\s+set balance/.test(node.sqlFragments[0] ?? '')
        ) {
          armed = false;
          held = true;
        }
        return node;
      },
      async transformResult(args) {
        if (held) {
          held = false;
          await until();
        }
        return args.result;
      },
    },
    arm: () => {
      armed = true;
    },
  };
}

/** Resolves once a session of this database idle in its transaction has been seen, then ended. */
async function idleSessionEnded(admin: pg.Client): Promise<void> {
  let seen = false;
  for (;;) {
    const { rows } = await admin.query<{ n: number }>(
      "select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'idle in transaction'",
    );
    const n = rows[0]?.n ?? 0;
    if (n > 0) seen = true;
    else if (seen) return;
    await activityPause();
  }
}

/** Resolves once the backend waiting on a lock has waited at least `ms` (the server's own clock). */
async function waitedAtLeast(admin: pg.Client, ms: number): Promise<void> {
  for (;;) {
    const { rows } = await admin.query<{ n: number }>(
      "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and now() - query_start > make_interval(secs => $1)",
      [ms / 1000],
    );
    if ((rows[0]?.n ?? 0) > 0) return;
    await activityPause();
  }
}

describe(
  'PostgreSQL: DATABASE_STATEMENT_TIMEOUT_MS [postgres]',
  { skip: !DATABASES.includes('postgres') },
  () => {
    let t: TestApp;
    let org: TestOrg;
    let admin: pg.Client;
    const stall = stallAfterDebit(() => idleSessionEnded(admin));

    before(async () => {
      t = await startTestApp(
        'postgres',
        { databaseStatementTimeoutMs: TIMEOUT_MS },
        { storePlugins: [{ kysely: stall.plugin, direct: () => undefined }] },
      );
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 10_000 });
      admin = await adminOf(t.config.database);
    });
    after(async () => {
      await admin.end();
      await t.close();
    });

    const order = () => orderOne(t, org.apiKey);
    const balance = () => balanceOf(admin, org.id);
    /** `busy` was a 503 database_busy that charged nothing; the next order goes through. */
    const busyThenOrders = async (busy: Awaited<ReturnType<typeof order>>, before: number) => {
      assert.equal(busy.statusCode, 503, busy.body);
      assert.equal(busy.headers['retry-after'], '1');
      assert.equal(busy.json<{ code: string }>().code, 'database_busy');
      assert.equal(await balance(), before, 'nothing was charged');
      const ordered = await order();
      assert.equal(ordered.statusCode, 200, ordered.body);
      assert.ok((await balance()) < before);
    };

    it('answers 503 database_busy once a lock wait outlasts the timeout, nothing written, and orders again once the lock is gone', async () => {
      const before = await balance();
      await admin.query('begin');
      await admin.query('select 1 from organisations where id = $1 for update', [org.id]);
      let busy;
      try {
        busy = await order();
      } finally {
        await admin.query('rollback');
      }
      await busyThenOrders(busy, before);
    });

    it('answers 503 database_busy when its own transaction idles past the timeout and the server ends the session, nothing written', async () => {
      const before = await balance();
      stall.arm();
      await busyThenOrders(await order(), before);
    });

    it('a command cut by the timeout says which setting lifts it (exit 1)', async () => {
      const target = t.config.database;
      assert.ok(target.kind === 'postgres');
      await admin.query('begin');
      await admin.query('lock table ledger_entries in access exclusive mode');
      let code: number | null;
      let stderr: string;
      try {
        const run = spawnEsim(
          {
            DATABASE_URL: target.url,
            DATABASE_STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS),
            LOG_LEVEL: 'warn',
          },
          'ledger',
          'verify',
        );
        code = await run.exited;
        stderr = run.stderr();
      } finally {
        await admin.query('rollback');
      }
      assert.equal(code, 1, stderr);
      assert.match(
        stderr,
        new RegExp(
          `^esim: canceling statement due to statement timeout: PostgreSQL ended a statement that ran past DATABASE_STATEMENT_TIMEOUT_MS \\(${TIMEOUT_MS} ms, a lock wait included\\); for a long command, run it with DATABASE_STATEMENT_TIMEOUT_MS=0\n$`,
        ),
      );
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
        // Waiting on the lock, by the server's clock, longer than a statement may run elsewhere:
        // the server would have ended it by now.
        await waitedAtLeast(other, 2 * TIMEOUT_MS);
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
