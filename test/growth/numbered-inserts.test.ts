import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { addBundles, fixtureBundle } from '../fixtures/orders.js';

// Orders and journal entries are numbered within the organisation as they are inserted (022):
// on SQLite the order path's inserts read their number from the counter themselves and the
// trigger only counts them (036-numbered-inserts); a row inserted without a number is numbered
// by the trigger. Either way the numbers are 1..n without a gap or a repeat, and the counter is n.

const UNIT = 'test_numbered_unit';

for (const kind of DATABASES) {
  describe(`numbered inserts [${kind}]`, () => {
    let t: TestApp;

    before(async () => {
      t = await startTestApp(kind);
      await addBundles(t, [fixtureBundle(UNIT, 100)]);
    });
    after(() => t.close());

    const order = async (org: TestOrg) => {
      const res = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: { type: 'transaction', order: [{ type: 'bundle', item: UNIT, quantity: 1 }] },
      });
      assert.equal(res.statusCode, 200, res.body);
    };

    /** The numbers of the organisation's rows in insertion order, and its counter. */
    const numbering = async (org: TestOrg, table: 'orders' | 'ledger_entries', name: string) => {
      const db = t.deps.store.db;
      const order = table === 'orders' ? sql`created_at, reference` : sql`id`;
      const rows = await sql<{ seq: number | string | null }>`
        select seq from ${sql.table(table)}
        where organisation_id = ${org.id} ${table === 'orders' ? sql`and source = 'order'` : sql``}
        order by ${order}`.execute(db);
      const counted = await sql<{ value: number | string }>`
        select value from organisation_counts
        where organisation_id = ${org.id} and name = ${name}`.execute(db);
      return {
        seqs: rows.rows.map((r) => Number(r.seq)),
        count: Number(counted.rows[0]?.value ?? 0),
      };
    };

    it('numbers orders and journal entries 1..n, written by either path, concurrent or not', async () => {
      const org = await t.createOrg({ balance: 1_000_000 });
      const other = await t.createOrg({ balance: 1_000_000 });
      // Alone, then many at once (a group-commit batch of several), two organisations interleaved.
      await order(org);
      await Promise.all(Array.from({ length: 24 }, (_, i) => order(i % 3 === 0 ? other : org)));
      // Rows inserted without a number, as any other code path may: the trigger numbers them.
      const db = t.deps.store.db;
      const at = new Date(t.clock.now().getTime() + 60_000).toISOString();
      await sql`insert into orders (reference, organisation_id, status, status_message, total,
          currency, assign, source, created_at)
        values (${'00000000-0000-7000-8000-00000000a001'}, ${org.id}, 'completed', 'by hand', 0,
          'USD', 0, 'order', ${at})`.execute(db);
      await sql`insert into ledger_entries (organisation_id, kind, balance_delta,
          test_credit_delta, balance_after, test_credit_after, reference, description, created_at)
        select id, 'adjustment', 0, 0, balance, test_credit, id, 'by hand', ${at}
        from organisations where id = ${org.id}`.execute(db);
      await Promise.all(Array.from({ length: 6 }, () => order(org)));

      for (const o of [org, other]) {
        const orders = await numbering(o, 'orders', 'orders:order');
        const ledger = await numbering(o, 'ledger_entries', 'ledger');
        for (const { seqs, count } of [orders, ledger]) {
          assert.deepEqual(
            [...seqs].sort((a, b) => a - b),
            Array.from({ length: seqs.length }, (_, i) => i + 1),
          );
          assert.equal(count, seqs.length);
        }
        // Journal entries are numbered in the order they were written.
        assert.deepEqual(
          ledger.seqs,
          Array.from({ length: ledger.seqs.length }, (_, i) => i + 1),
        );
      }
      assert.equal((await numbering(org, 'orders', 'orders:order')).count, 1 + 16 + 1 + 6);
      // GET /orders agrees: its total is the counter and every order is listed once.
      const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/orders?perPage=100' });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['x-total-count'], '24');
    });

    if (kind === 'sqlite') {
      it('writes an order and its journal entry once: no update of either row after its insert', async () => {
        const org = await t.createOrg({ balance: 1_000_000 });
        const db = t.deps.store.db;
        // Temporary triggers on this connection, the one the service writes through.
        await sql`create temp table numbered_updates (tbl text not null)`.execute(db);
        for (const table of ['orders', 'ledger_entries']) {
          await sql
            .raw(
              `create temp trigger ${table}_updated after update on main.${table}
              begin insert into numbered_updates values ('${table}'); end`,
            )
            .execute(db);
        }
        try {
          await order(org);
          await Promise.all(Array.from({ length: 8 }, () => order(org)));
          const updates = await sql<{ tbl: string }>`select tbl from numbered_updates`.execute(db);
          assert.deepEqual(updates.rows, []);
          const orders = await numbering(org, 'orders', 'orders:order');
          assert.deepEqual(
            orders.seqs,
            Array.from({ length: 9 }, (_, i) => i + 1),
          );
        } finally {
          await sql`drop trigger temp.orders_updated`.execute(db);
          await sql`drop trigger temp.ledger_entries_updated`.execute(db);
          await sql`drop table temp.numbered_updates`.execute(db);
        }
      });
    }
  });
}
