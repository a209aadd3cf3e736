import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SelectQueryNode, UpdateQueryNode, sql } from 'kysely';
import type { KyselyPlugin } from 'kysely';
import { tableName } from '../../src/store/write-watch.js';
import { createLifecycleWorker } from '../../src/workers/lifecycle-scheduler.js';
import { FR_1MB, buy, seedTestBundles } from '../esim-fixtures.js';
import { DATABASES, eventually, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { waitingOnLocks } from '../locks.js';

// A write that loses a deadlock or a serialisation conflict (PostgreSQL, another instance's
// transaction taking the same rows in another order) is never a 500: its transaction is run
// again, and a conflict that outlasts the reruns, like a database with no connection left, is a
// 503 database_busy with Retry-After, nothing written. (A connection the server refuses is asked
// for again by the pool, not by running the transaction again: database-connections.test.ts.)
// A background worker's turn that meets one is a warning, not an error: its next turn does the
// work.

/** Fails the next `times` updates of the esims table with a database error of `code`. */
function failingUpdates(): { plugin: KyselyPlugin; fail(code: string, times: number): void } {
  let left = 0;
  let code = '';
  return {
    plugin: {
      transformQuery(args) {
        if (left > 0 && UpdateQueryNode.is(args.node) && tableName(args.node.table) === 'esims') {
          left -= 1;
          throw Object.assign(new Error(`injected database error ${code}`), { code });
        }
        return args.node;
      },
      transformResult: (args) => Promise.resolve(args.result),
    },
    fail(failCode, times) {
      code = failCode;
      left = times;
    },
  };
}

/**
 * Fails the next `times` reads of the assignments table (the lifecycle worker's first read) with
 * a database error of `code`; `read` resolves at the first read after them that is let through.
 */
function failingDueReads(): {
  plugin: KyselyPlugin;
  fail(code: string, times: number): Promise<void>;
} {
  let left = 0;
  let code = '';
  let through: (() => void) | undefined;
  return {
    plugin: {
      transformQuery(args) {
        const node = args.node;
        if (SelectQueryNode.is(node) && tableName(node.from?.froms[0]) === 'assignments') {
          if (left > 0) {
            left -= 1;
            throw Object.assign(new Error(`injected database error ${code}`), { code });
          }
          through?.();
        }
        return node;
      },
      transformResult: (args) => Promise.resolve(args.result),
    },
    fail(failCode, times) {
      code = failCode;
      left = times;
      return new Promise((resolve) => {
        through = resolve;
      });
    },
  };
}

for (const kind of DATABASES) {
  describe(`database conflicts and busy connections [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    const failing = failingUpdates();
    const dueReads = failingDueReads();

    before(async () => {
      t = await startTestApp(
        kind,
        {},
        {
          storePlugins: [
            { kysely: failing.plugin, direct: () => undefined },
            { kysely: dueReads.plugin, direct: () => undefined },
          ],
        },
      );
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 1_000_000 });
    });
    after(() => t.close());

    const install = (iccid: string) =>
      t.app.inject({ method: 'POST', url: `/_sim/esims/${iccid}/install`, payload: {} });

    for (const [code, what] of [
      ['40P01', 'lost a deadlock'],
      ['40001', 'lost a serialisation conflict'],
    ] as const) {
      it(`runs a write that ${what} again: the request succeeds`, async () => {
        const [iccid] = (await buy(t, org, FR_1MB.name)).iccids;
        assert.ok(iccid);
        failing.fail(code, 1);
        const res = await install(iccid);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().profileStatus, 'Installed');
      });
    }

    for (const [code, what] of [
      ['40P01', 'a deadlock lost at every attempt'],
      ['40001', 'a serialisation failure at every attempt'],
      ['53300', 'no connection to be had (too many clients)'],
    ] as const) {
      it(`answers ${what} with 503 database_busy, never 500, nothing written`, async () => {
        const [iccid] = (await buy(t, org, FR_1MB.name)).iccids;
        assert.ok(iccid);
        failing.fail(code, 100);
        const res = await install(iccid);
        failing.fail(code, 0);
        assert.equal(res.statusCode, 503, res.body);
        assert.equal(res.headers['retry-after'], '1');
        assert.deepEqual(res.json(), {
          message: 'the database is busy; retry shortly',
          code: 'database_busy',
        });
        const esim = await t.deps.store.db
          .selectFrom('esims')
          .select('profile_status')
          .where('iccid', '=', iccid)
          .executeTakeFirstOrThrow();
        assert.equal(esim.profile_status, 'Released', 'nothing of the failed write stayed');
        // The retry the answer invites succeeds.
        const again = await install(iccid);
        assert.equal(again.statusCode, 200, again.body);
      });
    }

    for (const [code, level] of [
      ['53300', 'warn'],
      ['42P01', 'error'],
    ] as const) {
      it(`logs a background turn that met ${code} at ${level} level; the next turn runs`, async () => {
        const lines: { level: string; message: string }[] = [];
        const log = {
          info: () => undefined,
          warn: (_: object, message: string) => void lines.push({ level: 'warn', message }),
          error: (_: object, message: string) => void lines.push({ level: 'error', message }),
        };
        const config = { ...t.deps.config, schedulerIntervalMs: 1 };
        const worker = createLifecycleWorker({ ...t.deps, config }, log);
        const ranAgain = dueReads.fail(code, 2);
        worker.start();
        try {
          await ranAgain; // progress: a turn after the two failed ones read again
        } finally {
          await worker.stop();
        }
        const busy = 'lifecycle scheduler failed: the database was busy; the next turn tries again';
        const message = level === 'warn' ? busy : 'lifecycle scheduler failed';
        assert.deepEqual(lines, [
          { level, message },
          { level, message },
        ]);
      });
    }

    if (kind === 'postgres') {
      it('runs an install again after PostgreSQL chose it to break a real deadlock', async () => {
        const [iccid] = (await buy(t, org, FR_1MB.name)).iccids;
        assert.ok(iccid);
        const db = t.deps.store.db;
        const deadlocks = async (): Promise<number> => {
          const r = await sql<{ n: string }>`select deadlocks as n from pg_stat_database
            where datname = current_database()`.execute(db);
          return Number(r.rows[0]?.n ?? 0);
        };
        const before = await deadlocks();
        let installed: ReturnType<typeof install> | undefined;
        // Another instance's transaction: it holds the organisation's eSIM counter, which an
        // install moves after locking its eSIM, then wants that eSIM. Only the install's backend
        // looks for the cycle (deadlock_timeout), so PostgreSQL breaks it by rolling the install
        // back; its lock granted, the other transaction commits.
        await db.transaction().execute(async (trx) => {
          await sql`set local deadlock_timeout = '10min'`.execute(trx);
          await sql`select value from organisation_counts
            where organisation_id = ${org.id} and name = 'esims:Released' for update`.execute(trx);
          installed = install(iccid);
          // Progress, not time: the install waits for the counter, as PostgreSQL shows.
          while ((await waitingOnLocks(db)) === 0) {
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          await sql`select 1 from esims where iccid = ${iccid} for update`.execute(trx);
        });
        assert.ok(installed);
        const res = await installed;
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().profileStatus, 'Installed');
        // A backend reports its statistics once idle: the count is waited for.
        await eventually(
          async () => ((await deadlocks()) === before + 1 ? true : undefined),
          30_000,
          'PostgreSQL to count the one deadlock it broke',
        );
      });
    }
  });
}
