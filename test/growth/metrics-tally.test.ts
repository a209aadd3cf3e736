import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { readTally } from '../../src/store/repositories/metrics-repository.js';
import { FR_1MB, buy, restoreSnapshot, saveSnapshot, seedTestBundles } from '../esim-fixtures.js';
import { DATABASES, startTestApp } from '../harness.js';
import { ManualWallClock } from '../manual-wall-clock.js';
import type { TestApp, TestOrg } from '../harness.js';
import { parseExposition } from '../prometheus-text.js';
import { planOf, statementsOf } from '../query-plan.js';

// /metrics keeps running totals of orders and money moved, read at each scrape from the rows
// added since the last one: on SQLite by row id, on PostgreSQL by the organisations' row numbers
// (numbered-tally.ts), which become visible in order even when transactions commit out of id
// order. The totals equal sums of the rows themselves through concurrent orders and applies from
// several organisations between scrapes, and after a snapshot restored beneath them.

/** esim_orders_total and esim_money_moved_minor_total as `name labels value` lines, sorted. */
async function reported(t: TestApp): Promise<string[]> {
  // Past the one-second figure cache, on the app's wall clock.
  const wall = t.deps.wallClock;
  assert.ok(wall instanceof ManualWallClock);
  wall.advance(1000);
  const res = await t.app.inject({ url: '/metrics' });
  assert.equal(res.statusCode, 200);
  return parseExposition(res.body)
    .samples.filter(
      (s) =>
        (s.name === 'esim_orders_total' || s.name === 'esim_money_moved_minor_total') &&
        s.value !== 0,
    )
    .map((s) => `${s.name} ${JSON.stringify(s.labels)} ${s.value}`)
    .sort();
}

/** The same figures summed from the rows. */
async function summed(t: TestApp): Promise<string[]> {
  const db = t.deps.store.db;
  const orders = await sql<{ status: string; currency: string; n: number | string }>`
    select status, currency, count(*) as n from orders group by status, currency`.execute(db);
  const money = await sql<{
    kind: string;
    currency: string;
    balance: number | string;
    test_credit: number | string;
  }>`
    select l.kind, o.currency, sum(abs(l.balance_delta)) as balance,
      sum(abs(l.test_credit_delta)) as test_credit
    from ledger_entries as l join organisations as o on o.id = l.organisation_id
    group by l.kind, o.currency`.execute(db);
  const lines = [
    ...orders.rows.map(
      (r) =>
        `esim_orders_total ${JSON.stringify({ status: r.status, currency: r.currency })} ${Number(r.n)}`,
    ),
    ...money.rows.flatMap((r) =>
      (
        [
          ['balance', r.balance],
          ['test_credit', r.test_credit],
        ] as const
      )
        .filter(([, v]) => Number(v) !== 0)
        .map(
          ([funds, v]) =>
            `esim_money_moved_minor_total ${JSON.stringify({ type: r.kind, funds, currency: r.currency })} ${Number(v)}`,
        ),
    ),
  ];
  return lines.sort();
}

async function apply(t: TestApp, org: TestOrg): Promise<void> {
  const res = await t.request(org.apiKey, {
    method: 'POST',
    url: '/v2.1/esims/apply',
    payload: { name: FR_1MB.name },
  });
  assert.equal(res.statusCode, 200, res.body);
}

for (const kind of DATABASES) {
  describe(`order and money totals in /metrics [${kind}]`, () => {
    it('equal the rows through concurrent orders and applies between scrapes, and a restore', async () => {
      // Without the built-in catalogue (thousands of rows) the snapshot is kilobytes.
      const t = await startTestApp(
        kind,
        { catalogueSeed: false },
        { wallClock: new ManualWallClock() },
      );
      try {
        await seedTestBundles(t);
        const orgs = [
          await t.createOrg({ balance: 1_000_000 }),
          await t.createOrg({ balance: 1_000_000 }),
        ];
        // The first scrape reads the whole history: here, nothing.
        assert.deepEqual(await reported(t), await summed(t));
        let early: Awaited<ReturnType<typeof saveSnapshot>> | undefined;
        for (let round = 0; round < 3; round += 1) {
          await Promise.all(
            orgs.map(async (org) => {
              await Promise.all([1, 2, 3].map(() => buy(t, org, FR_1MB.name, { assign: false })));
              await Promise.all([apply(t, org), buy(t, org, FR_1MB.name)]);
            }),
          );
          const rows = await summed(t);
          assert.ok(rows.length >= 3, JSON.stringify(rows));
          assert.deepEqual(await reported(t), rows, `round ${round}`);
          early ??= await saveSnapshot(t);
        }
        // A snapshot from after the first round restored: fewer rows than the tally has read.
        assert.ok(early !== undefined);
        await restoreSnapshot(t, early);
        assert.deepEqual(await reported(t), await summed(t));
        await buy(t, orgs[0] as TestOrg, FR_1MB.name);
        assert.deepEqual(await reported(t), await summed(t));
      } finally {
        await t.close();
      }
    });

    if (kind === 'postgres') {
      it('reads only the rows numbered above what the last scrape read, by index', async () => {
        const t = await startTestApp(kind, {}, { wallClock: new ManualWallClock() });
        try {
          await seedTestBundles(t);
          const org = await t.createOrg({ balance: 1_000_000 });
          await buy(t, org, FR_1MB.name);
          const db = t.deps.store.db;
          const first = await readTally(db, kind, undefined);
          const statements = await statementsOf(db, (d) => readTally(d, kind, first.marks));
          // The restores counted, whether numbers went back, then the orders and the journal
          // entries numbered above the marks: each read from its mark on, in the index.
          const reads = statements.filter((x) => /\b(orders|ledger_entries)\b/.test(x.sql));
          assert.equal(reads.length, 3, JSON.stringify(statements.map((x) => x.sql)));
          const plans = await Promise.all(reads.map((x) => planOf(db, kind, x)));
          for (const plan of plans)
            assert.doesNotMatch(plan, /Seq Scan on (orders|ledger_entries)/);
          for (const [plan, indexes] of [
            [plans[0], ['orders_org_seq', 'ledger_entries_org_seq']],
            [plans[1], ['orders_org_seq']],
            [plans[2], ['ledger_entries_org_seq']],
          ] as const) {
            for (const index of indexes) assert.ok(plan?.includes(index), plan);
          }
          for (const plan of [plans[1], plans[2]]) {
            assert.match(plan ?? '', /Index Cond: \(.*\bseq > /, plan);
          }
          // Nothing added since: nothing read.
          const again = await readTally(db, kind, first.marks);
          assert.deepEqual([again.orders, again.money, again.fresh], [[], [], false]);
        } finally {
          await t.close();
        }
      });

      it('counts a journal entry committed after a later one was read', async () => {
        const t = await startTestApp(kind, {}, { wallClock: new ManualWallClock() });
        try {
          await seedTestBundles(t);
          const [a, b] = [
            await t.createOrg({ balance: 1_000_000 }),
            await t.createOrg({ balance: 1_000_000 }),
          ] as [TestOrg, TestOrg];
          assert.deepEqual(await reported(t), await summed(t));
          // A's entry takes its id first and stays uncommitted while B's order commits and a
          // scrape reads past B's later id.
          let commitA: () => void = () => undefined;
          const held = new Promise<void>((resolve) => {
            commitA = resolve;
          });
          let inserted: () => void = () => undefined;
          const written = new Promise<void>((resolve) => {
            inserted = resolve;
          });
          const pending = t.deps.store.db.transaction().execute(async (trx) => {
            const now = new Date().toISOString();
            await sql`insert into ledger_entries (organisation_id, kind, balance_delta,
                test_credit_delta, balance_after, test_credit_after, reference, description,
                created_at)
              values (${a.id}, 'adjustment', 777, 0, 0, 0, 'held', 'held', ${now})`.execute(trx);
            inserted();
            await held;
          });
          await written;
          await buy(t, b, FR_1MB.name);
          const early = await reported(t);
          commitA();
          await pending;
          const rows = await summed(t);
          assert.notDeepEqual(early, rows);
          assert.deepEqual(await reported(t), rows);
        } finally {
          await t.close();
        }
      });
    }
  });
}
