import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { seedTestBundles } from '../esim-fixtures.js';
import { DATABASES, eventually, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { activityPause, adminOf, balanceOf, orderOne } from './postgres-orders.js';

// An organisation's balance row held by another session (an operator's psql left in BEGIN) while
// its orders share a group-commit batch with other organisations' orders (PostgreSQL). The wait
// for the row ends when the server cancels it (57014): here the test cancels it with
// pg_cancel_backend, as DATABASE_STATEMENT_TIMEOUT_MS would, so no wait lasts a set time. One
// batch at a time (GROUP_COMMIT_LANES=1), so the orders that arrive while the first waits are
// taken into the next batch together.

/** The pid of the one backend of this database that waits for a lock, once there is one. */
async function lockWaiter(admin: pg.Client): Promise<number> {
  for (;;) {
    const { rows } = await admin.query<{ pid: number }>(
      "select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
    );
    if (rows.length > 1) throw new Error(`${rows.length} backends wait for a lock at once`);
    const pid = rows[0]?.pid;
    if (pid !== undefined) return pid;
    await activityPause();
  }
}

/** Cancels the statement of the backend that waits for a lock (57014), once it waits. */
async function cancelWait(admin: pg.Client): Promise<void> {
  await admin.query('select pg_cancel_backend($1)', [await lockWaiter(admin)]);
}

describe(
  'PostgreSQL: a balance row held by another session, in a group-commit batch [postgres]',
  { skip: !DATABASES.includes('postgres') },
  () => {
    let t: TestApp;
    let held: TestOrg;
    let others: TestOrg[];
    let admin: pg.Client;

    before(async () => {
      t = await startTestApp('postgres', { groupCommitLanes: 1 });
      await seedTestBundles(t);
      held = await t.createOrg({ balance: 10_000 });
      others = [await t.createOrg({ balance: 10_000 }), await t.createOrg({ balance: 10_000 })];
      admin = await adminOf(t.config.database);
    });
    after(async () => {
      await admin.end();
      await t.close();
    });

    it("holds the other organisations' orders of its batch for two waits at most, and runs the held one's others alone after", async () => {
      const balances = () => Promise.all([held, ...others].map((o) => balanceOf(admin, o.id)));
      const before = await balances();
      await admin.query('begin');
      await admin.query('select 1 from organisations where id = $1 for update', [held.id]);
      try {
        // The first order waits for the row in a batch of its own; the next four queue behind it.
        const first = orderOne(t, held.apiKey);
        await lockWaiter(admin);
        const mine = [orderOne(t, held.apiKey), orderOne(t, held.apiKey)];
        const theirs = others.map((o) => orderOne(t, o.apiKey));
        await eventually(async () => (t.deps.store.writer.queued() === 4 ? true : undefined));
        await cancelWait(admin);
        const refused = await first;
        assert.equal(refused.statusCode, 503, refused.body);
        assert.equal(refused.json<{ code: string }>().code, 'database_busy');
        // The batch of the four waits for the row in its first pass (its first debit locks every
        // organisation's balance row), then once in its second, for the held organisation's
        // first order, which fails; the others' orders commit.
        await cancelWait(admin);
        await cancelWait(admin);
        // The next wait is the held organisation's second order, run alone after that commit.
        const pid = await lockWaiter(admin);
        const committed = await balances();
        committed.slice(1).forEach((balance, i) => {
          assert.ok(balance < (before[i + 1] ?? 0), 'the others committed before this wait');
        });
        await admin.query('select pg_cancel_backend($1)', [pid]);
        for (const answer of await Promise.all(theirs)) {
          assert.equal(answer.statusCode, 200, answer.body);
        }
        for (const answer of await Promise.all(mine)) {
          assert.equal(answer.statusCode, 503, answer.body);
          assert.equal(answer.json<{ code: string }>().code, 'database_busy');
        }
      } finally {
        await admin.query('rollback');
      }
      assert.equal(
        (await balances())[0],
        before[0],
        'nothing was charged to the held organisation',
      );
      const ordered = await orderOne(t, held.apiKey);
      assert.equal(ordered.statusCode, 200, ordered.body);
    });
  },
);
