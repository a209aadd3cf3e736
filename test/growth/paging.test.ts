import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { addBundles, fixtureBundle } from '../fixtures/orders.js';
import { assertIndexedRead, planOf, statementsOf } from '../query-plan.js';
import {
  ledgerEntriesAfter,
  listLedgerEntries,
  pageLedgerEntries,
  testCreditExpiredSince,
} from '../../src/store/repositories/ledger-repository.js';
import { listOrders } from '../../src/store/repositories/order-repository.js';

// Lists paged by number read rows by their number within the organisation, and their totals are
// counters kept with the rows: pages stay exact while rows arrive, totals after concurrent writes.
// A filtered eSIM list pages by key: its next links read every match once while matches arrive.

const UNIT = 'test_growth_unit';

for (const kind of DATABASES) {
  describe(`paging at size [${kind}]`, () => {
    let t: TestApp;

    before(async () => {
      t = await startTestApp(kind);
      await addBundles(t, [fixtureBundle(UNIT, 100)]);
    });
    after(() => t.close());

    const order = async (org: TestOrg, assign: boolean) => {
      const res = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: {
          type: 'transaction',
          assign,
          order: [{ type: 'bundle', item: UNIT, quantity: 1 }],
        },
      });
      assert.equal(res.statusCode, 200, res.body);
    };
    const get = async (org: TestOrg, url: string) => {
      const res = await t.request(org.apiKey, { method: 'GET', url });
      assert.equal(res.statusCode, 200, res.body);
      return res;
    };

    it('pages eSIMs by number, every one exactly once, while eSIMs are being issued', async () => {
      const org = await t.createOrg({ balance: 1_000_000 });
      for (let i = 0; i < 23; i += 1) await order(org, true);
      const seen: string[] = [];
      for (let page = 1; page <= 20; page += 1) {
        const body = (await get(org, `/v2.1/esims?perPage=4&page=${page}`)).json<{
          esims: { iccid: string }[];
        }>();
        seen.push(...body.esims.map((e) => e.iccid));
        // A page not full is the end for now: rows issued later fill it up (and the next ones).
        if (body.esims.length < 4) break;
        // More arrive between pages, some at once.
        await Promise.all([order(org, true), order(org, true)]);
      }
      const all = (await get(org, '/v2.1/esims?perPage=500')).json<{
        esims: { iccid: string }[];
        rows: number;
      }>();
      assert.equal(all.rows, all.esims.length);
      assert.ok(seen.length > 23, 'rows issued while paging were read too');
      assert.equal(new Set(seen).size, seen.length, 'no eSIM twice');
      assert.deepEqual(seen, all.esims.map((e) => e.iccid).slice(0, seen.length));
      // Newest first: the same rows reversed, pages anchored at the total read first.
      const desc = (await get(org, '/v2.1/esims?perPage=7&page=2&direction=desc')).json<{
        esims: { iccid: string }[];
      }>();
      assert.deepEqual(
        desc.esims.map((e) => e.iccid),
        all.esims
          .map((e) => e.iccid)
          .reverse()
          .slice(7, 14),
      );
    });

    it('follows the next links of a filtered eSIM list through every match exactly once while matches are added', async () => {
      const org = await t.createOrg({ balance: 1_000_000 });
      /** A new eSIM with this reference. */
      const issue = async (customerRef: string) => {
        const res = await t.request(org.apiKey, {
          method: 'POST',
          url: '/v2.1/orders',
          payload: {
            type: 'transaction',
            assign: true,
            order: [{ type: 'bundle', item: UNIT, quantity: 1 }],
          },
        });
        assert.equal(res.statusCode, 200, res.body);
        const iccid = res.json<{ order: { iccids: string[] }[] }>().order[0]?.iccids[0] ?? '';
        const set = await t.request(org.apiKey, {
          method: 'PUT',
          url: '/v2.4/esims',
          payload: { iccid, customerRef },
        });
        assert.equal(set.statusCode, 200, set.body);
        return iccid;
      };
      for (let i = 10; i < 19; i += 1) await issue(`fleet-${i}`);
      const list = '/v2.4/esims?filterBy=customerRef&filter=fleet-&perPage=2';
      const behind: string[] = [];
      const seen: string[] = [];
      for (let url: string | undefined = list; url !== undefined;) {
        const res = await get(org, url);
        seen.push(...res.json<{ esims: { iccid: string }[] }>().esims.map((e) => e.iccid));
        url = linkOf(String(res.headers['link']), 'next');
        if (url === undefined || behind.length >= 5) continue;
        assert.doesNotMatch(url, /[?&]page=/);
        // Between pages: one match before every row read so far, which the walk has passed, and
        // one after every row, which it reaches.
        behind.push(await issue(`fleet-00-${behind.length}`));
        await issue(`fleet-99-${behind.length}`);
      }
      const now = (await get(org, `${list.replace('perPage=2', 'perPage=500')}`)).json<{
        esims: { iccid: string }[];
      }>();
      assert.equal(new Set(seen).size, seen.length, 'no eSIM twice');
      assert.deepEqual(
        seen,
        now.esims.map((e) => e.iccid).filter((iccid) => !behind.includes(iccid)),
      );
      assert.equal(seen.length, 9 + 5);
    });

    it('keeps the totals and the Link header exact after concurrent orders and refunds', async () => {
      const org = await t.createOrg({ balance: 1_000_000 });
      await Promise.all(Array.from({ length: 40 }, (_, i) => order(org, i % 2 === 0)));
      // Revoking an unused assignment refunds its unit: no order or eSIM is added or removed.
      const esims = (await get(org, '/v2.1/esims?perPage=500')).json<{
        esims: { iccid: string }[];
      }>();
      const first = esims.esims[0]?.iccid;
      assert.ok(first !== undefined);
      const revoked = await t.request(org.apiKey, {
        method: 'DELETE',
        url: `/v2.1/esims/${first}/bundles/${UNIT}`,
      });
      assert.equal(revoked.statusCode, 200, revoked.body);
      // An inventory refund returns units to the balance: no order is added or removed either.
      const inventory = (await get(org, '/v2.1/inventory')).json<{
        bundles: { available: { id: number }[] }[];
      }>();
      const usageId = inventory.bundles[0]?.available[0]?.id;
      assert.ok(usageId !== undefined);
      const refunded = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/inventory/refund',
        payload: { usageId, quantity: 1 },
      });
      assert.equal(refunded.statusCode, 200, refunded.body);
      const res = await get(org, '/v2.1/orders?perPage=7&page=3');
      assert.equal(res.headers['x-total-count'], '40');
      const link = String(res.headers['link']);
      assert.match(link, /page=4>; rel="next"/);
      assert.match(link, /page=2>; rel="prev"/);
      assert.match(link, /page=6>; rel="last"/);
      const refs: string[] = [];
      for (let page = 1; page <= 6; page += 1) {
        const list = (await get(org, `/v2.1/orders?perPage=7&page=${page}`)).json<
          { orderReference: string }[]
        >();
        refs.push(...list.map((o) => o.orderReference));
      }
      assert.equal(refs.length, 40);
      assert.equal(new Set(refs).size, 40);
      assert.deepEqual(await get(org, '/v2.1/orders?perPage=7&page=7').then((r) => r.json()), []);
      const esimTotal = (await get(org, '/v2.1/esims?perPage=1')).json<{ rows: number }>().rows;
      assert.equal(esimTotal, 20);
    });

    // eSIM pages (with and without deletions): esim-deletions.test.ts.
    it('reads a page through the row-number index, sorting nothing, at any page', async () => {
      const org = await t.createOrg({ balance: 1_000 });
      const db = t.deps.store.db;
      const statements = await statementsOf(db, (d) =>
        listOrders(d, org.id, { offset: 700, limit: 50, total: 1000 }),
      );
      const ledger = (
        await statementsOf(db, (d) => pageLedgerEntries(d, org.id, { offset: 0, limit: 50 }))
      ).at(-1);
      assert.ok(ledger !== undefined);
      assertIndexedRead(await planOf(db, kind, ledger), 'ledger_entries_org_seq');
      const [orders] = statements;
      assert.ok(orders !== undefined);
      assertIndexedRead(await planOf(db, kind, orders), 'orders_org_seq');
    });

    it('reads the journal in its order through its row numbers: newest, export chunks, expiry check', async () => {
      const org = await t.createOrg({ balance: 1_000 });
      const db = t.deps.store.db;
      for (const read of [
        (d: typeof db) => listLedgerEntries(d, org.id, 20),
        (d: typeof db) => ledgerEntriesAfter(d, org.id, 5, 500),
        (d: typeof db) => testCreditExpiredSince(d, org.id, 5),
      ]) {
        const [statement] = await statementsOf(db, read);
        assert.ok(statement !== undefined);
        assertIndexedRead(await planOf(db, kind, statement), 'ledger_entries_org_seq');
      }
    });

    it('exports the journal in chunks, every entry once and in order, while entries are added', async () => {
      const org = await t.createOrg({ balance: 1_000_000 });
      const other = await t.createOrg({ balance: 1_000_000 });
      for (let i = 0; i < 9; i += 1) await order(org, false);
      const db = t.deps.store.db;
      const seen: number[] = [];
      let after = 0;
      for (;;) {
        const chunk = await ledgerEntriesAfter(db, org.id, after, 4);
        if (chunk.length === 0) break;
        seen.push(...chunk.map((e) => e.id));
        after = chunk.at(-1)?.id ?? after;
        // Entries of this organisation and another arrive between chunks.
        if (seen.length < 12) await Promise.all([order(org, false), order(other, false)]);
      }
      const newest = await listLedgerEntries(db, org.id, 500);
      assert.deepEqual(
        seen,
        newest.map((e) => e.id).reverse(),
        'every entry of the organisation once, oldest first',
      );
      assert.ok(seen.length >= 12);
      assert.deepEqual(
        seen,
        [...seen].sort((a, b) => a - b),
      );
    });
  });
}

/** The URL of one link of a Link header, relative to the app. */
function linkOf(header: string, rel: string): string | undefined {
  for (const part of header.split(/,\s*(?=<)/)) {
    const m = /^<([^>]*)>;\s*rel="([^"]+)"/.exec(part);
    if (m?.[2] === rel) return (m[1] ?? '').replace(/^https?:\/\/[^/]+/, '');
  }
  return undefined;
}
