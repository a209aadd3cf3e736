import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { seedTestBundles } from '../esim-fixtures.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { activityPause, adminOf, balanceOf, orderOne } from './postgres-orders.js';

// An organisation's balance row held by another session (an operator's psql left in BEGIN) while
// its orders share a group-commit batch with other organisations' orders (PostgreSQL). The wait
// for the row ends when the server cancels it (57014): here the test cancels it with
// pg_cancel_backend, as DATABASE_STATEMENT_TIMEOUT_MS would, so no wait lasts a set time. One
// batch at a time (GROUP_COMMIT_LANES=1), so the orders that arrive while the first waits are
// taken into the next batch together, and an order placed while the held organisation's last
// order waits alone shows the lane was let go.

interface Wait {
  readonly pid: number;
  readonly since: string;
}

/**
 * The waits for a lock of this database's backends, one after the other, seen through `watcher`
 * (a connection with no transaction open: inside one, pg_stat_activity would stay as first read).
 * `next` is the next wait not seen before (another backend, or the same one's next statement).
 */
function lockWaits(watcher: pg.Client): {
  next(): Promise<Wait>;
  still(wait: Wait): Promise<boolean>;
} {
  const seen = new Set<string>();
  const current = async (): Promise<Wait | undefined> => {
    const { rows } = await watcher.query<{ pid: number; since: string }>(
      "select pid, query_start::text as since from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
    );
    if (rows.length > 1) throw new Error(`${rows.length} backends wait for a lock at once`);
    return rows[0];
  };
  return {
    async next() {
      for (;;) {
        const wait = await current();
        if (wait !== undefined && !seen.has(`${wait.pid} ${wait.since}`)) {
          seen.add(`${wait.pid} ${wait.since}`);
          return wait;
        }
        await activityPause();
      }
    },
    async still(wait) {
      const now = await current();
      return now?.pid === wait.pid && now.since === wait.since;
    },
  };
}

describe(
  'PostgreSQL: a balance row held by another session, in a group-commit batch [postgres]',
  { skip: !DATABASES.includes('postgres') },
  () => {
    let t: TestApp;
    let held: TestOrg;
    let others: TestOrg[];
    let holder: pg.Client;
    let watcher: pg.Client;

    before(async () => {
      t = await startTestApp('postgres', { groupCommitLanes: 1 });
      await seedTestBundles(t);
      held = await t.createOrg({ balance: 10_000 });
      others = [await t.createOrg({ balance: 10_000 }), await t.createOrg({ balance: 10_000 })];
      holder = await adminOf(t.config.database);
      watcher = await adminOf(t.config.database);
    });
    after(async () => {
      await holder.end();
      await watcher.end();
      await t.close();
    });

    const balances = async (): Promise<number[]> => {
      const all: number[] = [];
      for (const o of [held, ...others]) all.push(await balanceOf(watcher, o.id));
      return all;
    };
    const busy = (answer: Awaited<ReturnType<typeof orderOne>>) => {
      assert.equal(answer.statusCode, 503, answer.body);
      assert.equal(answer.json<{ code: string }>().code, 'database_busy');
    };

    it("holds the other organisations' orders for two waits at most, and runs the held one's others alone, the lane free", async () => {
      const before = await balances();
      const waits = lockWaits(watcher);
      const cancel = (wait: Wait) => watcher.query('select pg_cancel_backend($1)', [wait.pid]);
      await holder.query('begin');
      await holder.query('select 1 from organisations where id = $1 for update', [held.id]);
      try {
        // The first order waits for the row in a batch of its own; the next four queue behind it.
        const first = orderOne(t, held.apiKey);
        const alone = await waits.next();
        const mine = [orderOne(t, held.apiKey), orderOne(t, held.apiKey)];
        const theirs = others.map((o) => orderOne(t, o.apiKey));
        while (t.deps.store.writer.waiting() < 4) await activityPause();
        await cancel(alone);
        busy(await first);
        // The batch of the four waits for the row in its first pass (its first debit locks every
        // organisation's balance row), then once in its second, for the held organisation's
        // first order, which fails; the others' orders commit.
        await cancel(await waits.next());
        await cancel(await waits.next());
        // The next wait is the held organisation's second order, run alone after that commit.
        const last = await waits.next();
        const committed = await balances();
        committed.slice(1).forEach((balance, i) => {
          assert.ok(balance < (before[i + 1] ?? 0), 'the others committed before this wait');
        });
        // Meanwhile the one lane is free: another organisation's new order is placed while the
        // held organisation's order still waits.
        const late = await orderOne(t, others[0]?.apiKey ?? '');
        assert.equal(late.statusCode, 200, late.body);
        assert.ok(await waits.still(last), 'the held order still waits');
        await cancel(last);
        for (const answer of await Promise.all(theirs)) {
          assert.equal(answer.statusCode, 200, answer.body);
        }
        for (const answer of await Promise.all(mine)) busy(answer);
      } finally {
        await holder.query('rollback');
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
