import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { orderNumbersInTime } from '../../src/store/repositories/order-time-repository.js';
import { listOrders } from '../../src/store/repositories/order-repository.js';
import { findEsim } from '../../src/store/repositories/esim-repository.js';
import { FR_1MB, seedTestBundles } from '../esim-fixtures.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { assertIndexedRead, planOf, statementsOf } from '../query-plan.js';

// Filter operators of v2.2 and later: `createdAt` on GET /orders (eq, lt, lte, gt, gte; times or
// whole days; repeated conditions all hold), read through an index at any size, with paging and
// totals over the filtered orders; `eq:` on the catalogue's text filters. A clear 400 for an
// unknown operator or a value that is not a time; v2.1 reads what it always did.

const DAY = 86_400;

interface ListedOrder {
  orderReference: string;
  createdDate?: string;
  createDate?: string;
}

for (const kind of DATABASES) {
  describe(`filter operators [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let other: TestOrg;
    // The organisation's orders, oldest first: one a day for six days.
    const placed: { reference: string; at: string }[] = [];

    const place = async (who: TestOrg): Promise<{ reference: string; at: string }> => {
      const res = await t.request(who.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: {
          type: 'transaction',
          assign: false,
          order: [{ type: 'bundle', item: FR_1MB.name, quantity: 1 }],
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json<{ orderReference: string; createDate: string }>();
      return { reference: body.orderReference, at: body.createDate };
    };

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 1_000_000 });
      other = await t.createOrg({ balance: 1_000_000 });
      for (let day = 0; day < 6; day += 1) {
        placed.push(await place(org));
        await place(other);
        t.clock.advance(DAY);
      }
    });
    after(() => t.close());

    const list = async (query: string, version = '2.4', who = org) => {
      const res = await t.request(who.apiKey, {
        method: 'GET',
        url: `/v${version}/orders?${query}`,
      });
      assert.equal(res.statusCode, 200, res.body);
      return res;
    };
    const refs = (body: { orders: ListedOrder[] }) => body.orders.map((o) => o.orderReference);
    const dayOf = (i: number) => (placed[i]?.at ?? '').slice(0, 10);
    const ref = (i: number) => placed[i]?.reference ?? '';

    it('selects a range of days, newest first, with its own total and paging', async () => {
      const range = `createdAt=gte:${dayOf(1)}&createdAt=lte:${dayOf(3)}`;
      const all = await list(range);
      assert.deepEqual(refs(all.json()), [ref(3), ref(2), ref(1)]);
      assert.equal(all.headers['x-total-count'], '3');
      const second = await list(`${range}&limit=2&page=2`);
      assert.deepEqual(refs(second.json()), [ref(1)]);
      assert.equal(second.headers['x-total-count'], '3');
      const link = String(second.headers['link']);
      assert.match(link, /createdAt=gte%3A/);
      assert.match(link, /limit=2/);
      assert.match(link, /page=1>; rel="prev"/);
      assert.doesNotMatch(link, /rel="next"/);
    });

    it('reads eq (the default), lt, lte, gt and gte on times and whole days', async () => {
      const at2 = placed[2]?.at ?? '';
      assert.deepEqual(refs((await list(`createdAt=${dayOf(4)}`)).json()), [ref(4)]);
      assert.deepEqual(refs((await list(`createdAt=eq:${at2}`)).json()), [ref(2)]);
      assert.deepEqual(refs((await list(`createdAt=gt:${at2}`)).json()), [ref(5), ref(4), ref(3)]);
      assert.deepEqual(refs((await list(`createdAt=gte:${at2}&createdAt=lt:${dayOf(4)}`)).json()), [
        ref(3),
        ref(2),
      ]);
      assert.deepEqual(refs((await list(`createdAt=lt:${at2}`)).json()), [ref(1), ref(0)]);
      assert.deepEqual(refs((await list(`createdAt=lte:${at2}`, '2.2')).json()), [
        ref(2),
        ref(1),
        ref(0),
      ]);
      // An offset other than Z names the same instant.
      const plusOne = new Date(Date.parse(at2) + 3_600_000).toISOString().replace('Z', '+01:00');
      assert.deepEqual(refs((await list(`createdAt=eq:${encodeURIComponent(plusOne)}`)).json()), [
        ref(2),
      ]);
    });

    it('answers an empty range, or one before every order, with nothing', async () => {
      const none = await list(`createdAt=gte:${dayOf(4)}&createdAt=lte:${dayOf(1)}`);
      assert.deepEqual(refs(none.json()), []);
      assert.equal(none.headers['x-total-count'], '0');
      const before = await list('createdAt=lt:2000-01-01');
      assert.deepEqual(refs(before.json()), []);
      const after = await list('createdAt=gt:2999-12-31T00:00:00Z');
      assert.equal(after.headers['x-total-count'], '0');
    });

    it('shows no other organisation’s orders', async () => {
      const mine = new Set(placed.map((p) => p.reference));
      const theirs = refs((await list(`createdAt=gte:${dayOf(0)}`, '2.5', other)).json());
      assert.equal(theirs.length, 6);
      assert.ok(theirs.every((r) => !mine.has(r)));
    });

    it('answers 400 naming the parameter for an unknown operator or a value that is not a time', async () => {
      for (const [query, text] of [
        ['createdAt=after:2024-01-01', /unknown operator "after"/],
        ['createdAt=gte:yesterday', /is not a time/],
        ['createdAt=2024-02-30', /is not a time/],
        ['createdAt=gte:2024-01-01T10:00:00', /is not a time/],
        ['limit=0', /limit/],
      ] as const) {
        const res = await t.request(org.apiKey, { method: 'GET', url: `/v2.4/orders?${query}` });
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
        const body = res.json<{ message: string }>();
        assert.match(body.message, query.startsWith('limit') ? /limit/ : /createdAt/);
        assert.match(body.message, text);
      }
    });

    it('leaves v2.1 as it was: createdAt is not one of its parameters', async () => {
      const res = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/orders?createdAt=gte:${dayOf(5)}&createdAt=after:x`,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['x-total-count'], '6');
    });

    it('finds the range with index probes and reads the page by number, sorting nothing', async () => {
      const db = t.deps.store.db;
      const from = placed[1]?.at ?? '';
      const to = placed[3]?.at ?? '';
      const probes = await statementsOf(db, (d) => orderNumbersInTime(d, org.id, { from, to }, 6));
      assert.equal(probes.length, 2);
      for (const probe of probes) {
        assertIndexedRead(await planOf(db, kind, probe), 'orders_org_source_created');
      }
      const page = await statementsOf(db, (d) =>
        listOrders(d, org.id, { offset: 0, limit: 2, total: 3, first: 2 }),
      );
      assert.equal(page.length, 2, 'the page, then its lines');
      const [rows] = page;
      assert.ok(rows !== undefined);
      assertIndexedRead(await planOf(db, kind, rows), 'orders_org_seq');
    });

    it('filters eSIMs by ICCID on v2.2 and later', async () => {
      const bought = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: {
          type: 'transaction',
          assign: true,
          order: [{ type: 'bundle', item: FR_1MB.name, quantity: 2 }],
        },
      });
      assert.equal(bought.statusCode, 200, bought.body);
      const [mine] = bought.json<{ order: { iccids: string[] }[] }>().order[0]?.iccids ?? [];
      assert.ok(mine !== undefined);
      const esims = async (query: string, version = '2.4', who = org) => {
        const res = await t.request(who.apiKey, {
          method: 'GET',
          url: `/v${version}/esims?${query}`,
        });
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json<{ esims: { iccid: string }[]; rows: number }>();
        return { iccids: body.esims.map((e) => e.iccid), rows: body.rows };
      };
      assert.deepEqual(await esims(`filterBy=iccid&filter=${mine}`), { iccids: [mine], rows: 1 });
      assert.deepEqual(await esims(`filterBy=iccid&filter=eq:${mine}`, '2.2'), {
        iccids: [mine],
        rows: 1,
      });
      assert.deepEqual(await esims(`filterBy=iccid&filter=${mine}&page=2`), {
        iccids: [],
        rows: 1,
      });
      // Another organisation's eSIM is not in the list.
      assert.deepEqual(await esims(`filterBy=iccid&filter=${mine}`, '2.5', other), {
        iccids: [],
        rows: 0,
      });
      // v2.1 has no filterBy: its list is whole.
      assert.equal((await esims(`filterBy=iccid&filter=${mine}`, '2.1')).rows, 2);
      for (const [query, text] of [
        ['filterBy=colour&filter=red', /unknown field "colour"/],
        [`filter=${mine}`, /needs filterBy/],
        ['filterBy=iccid', /filter is required/],
        ['filterBy=iccid&filter=8944*', /wildcards/],
        ['filterBy=iccid&filter=lt:8944', /does not apply to text/],
      ] as const) {
        const res = await t.request(org.apiKey, { method: 'GET', url: `/v2.4/esims?${query}` });
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
        assert.match(res.json<{ message: string }>().message, text);
      }
      const [lookup] = await statementsOf(t.deps.store.db, (d) => findEsim(d, mine));
      assert.ok(lookup !== undefined);
      const plan = await planOf(t.deps.store.db, kind, lookup);
      assertIndexedRead(plan, kind === 'sqlite' ? 'sqlite_autoindex_esims_1' : 'esims_pkey');
    });

    it('matches catalogue text whole with eq:, and refuses order operators on text', async () => {
      const names = async (query: string, version = '2.4') => {
        const res = await t.request(org.apiKey, {
          method: 'GET',
          url: `/v${version}/catalogue?${query}`,
        });
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json<{ bundles: { name: string }[] } | { name: string }[]>();
        return (Array.isArray(body) ? body : body.bundles).map((b) => b.name).sort();
      };
      const exact = encodeURIComponent(`eq:${FR_1MB.description.toUpperCase()}`);
      assert.deepEqual(await names(`description=${exact}`), [FR_1MB.name]);
      // Without eq: the text matches anywhere, as on v2.1.
      const part = '1MB, 30 Days';
      assert.deepEqual(await names(`description=${encodeURIComponent(part)}`), [FR_1MB.name]);
      assert.deepEqual(await names(`description=${encodeURIComponent(`eq:${part}`)}`), []);
      assert.deepEqual(
        await names(`group=${encodeURIComponent('eq:Standard eSIM Bundles')}&countries=eq:FR`),
        await names('group=Standard%20eSIM%20Bundles&countries=FR'),
      );
      // v2.1 reads the text as it is: nothing is described "eq:…".
      assert.deepEqual(await names(`description=${exact}`, '2.1'), []);
      for (const query of ['description=lt:eSIM', 'region=gte:Europe']) {
        const res = await t.request(org.apiKey, { method: 'GET', url: `/v2.4/catalogue?${query}` });
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
        assert.match(res.json<{ message: string }>().message, /does not apply to text/);
      }
    });
  });
}
