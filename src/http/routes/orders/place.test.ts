import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';
import type { FileBackedApp } from '../../../../test/fixtures/orders.js';
import {
  addBundles,
  fixtureBundle,
  runCli,
  startFileBackedApp,
} from '../../../../test/fixtures/orders.js';
import { isValidIccid } from '../../../domain/esims/esim-issuer.js';

const SMALL = 'test_orders_small';
const BIG = 'test_orders_big';
const PROMO = 'test_orders_promo_only';

for (const kind of DATABASES) {
  describe(`POST /v2.1/orders [${kind}]`, () => {
    let f: FileBackedApp;
    let t: TestApp;

    before(async () => {
      f = await startFileBackedApp(kind, {
        orderMaxQuantityPerLine: 20,
        orderMaxQuantityPerOrder: 30,
        orderMaxLines: 3,
      });
      t = f.t;
      await addBundles(t, [
        fixtureBundle(SMALL, 250),
        fixtureBundle(BIG, 1000, { dataAmount: 5000, duration: 30 }),
        fixtureBundle(PROMO, 100, { groups: ['Promo'] }),
      ]);
    });
    after(() => f.close());

    const post = (org: TestOrg, payload: object, headers: Record<string, string> = {}) =>
      t.request(org.apiKey, { method: 'POST', url: '/v2.1/orders', payload, headers });
    const balanceOf = async (org: TestOrg): Promise<number> =>
      (await t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' })).json()
        .organisations[0].balance;
    const ordersOf = async (org: TestOrg): Promise<unknown[]> =>
      (await t.request(org.apiKey, { method: 'GET', url: '/v2.1/orders' })).json();
    const inventoryOf = async (org: TestOrg) =>
      (await t.request(org.apiKey, { method: 'GET', url: '/v2.1/inventory' })).json().bundles;
    const countRows = async (
      table: 'esims' | 'assignments' | 'ledger_entries' | 'orders' | 'inventory_batches',
    ) => {
      const row = await t.deps.store.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    };

    it('gives orders references that are UUIDs sorting in the order they were placed', async () => {
      // Time-ordered (version 7): an order's rows are appended to the indexes keyed by it.
      const org = await t.createOrg({ balance: 10_000 });
      const references: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        const res = await post(org, {
          type: 'transaction',
          assign: false,
          order: [{ type: 'bundle', item: SMALL, quantity: 1 }],
        });
        assert.equal(res.statusCode, 200, res.body);
        references.push(res.json().orderReference);
      }
      for (const reference of references) {
        assert.match(
          reference,
          /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        );
      }
      assert.deepEqual([...references].sort(), references);
    });

    it('puts bundles into inventory, debits the total and reads the order back', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const res = await post(org, {
        type: 'transaction',
        assign: false,
        order: [
          { type: 'bundle', item: SMALL, quantity: 3 },
          { type: 'bundle', item: BIG, quantity: 2 },
        ],
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.status, 'completed');
      assert.equal(body.total, 2750);
      assert.equal(body.currency, 'USD');
      assert.match(body.orderReference, /^[0-9a-f-]{36}$/);
      assert.match(body.createDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      assert.match(body.statusMessage, /5 bundles added to inventory/);
      assert.deepEqual(body.order, [
        { type: 'bundle', item: SMALL, quantity: 3, subTotal: 750, pricePerUnit: 250 },
        { type: 'bundle', item: BIG, quantity: 2, subTotal: 2000, pricePerUnit: 1000 },
      ]);
      assert.equal(await balanceOf(org), 7250);

      const got = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/orders/${body.orderReference}`,
      });
      assert.equal(got.statusCode, 200);
      assert.deepEqual(got.json(), body);

      const inventory = await inventoryOf(org);
      assert.deepEqual(
        inventory.map((b: { name: string }) => b.name),
        [BIG, SMALL],
      );
      const small = inventory.find((b: { name: string }) => b.name === SMALL);
      assert.equal(small.available.length, 1);
      assert.equal(small.available[0].total, 3);
      assert.equal(small.available[0].remaining, 3);
      assert.equal(typeof small.available[0].id, 'number');
      assert.match(small.available[0].expiry, /Z$/);
      assert.equal(small.desc, `Fixture ${SMALL}`);
      assert.deepEqual(small.countries, ['GB']);
      assert.equal(small.data, 1000);
      assert.equal(small.durationUnit, 'day');
    });

    it('defaults to a transaction into inventory and lists orders newest first', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const first = await post(org, { order: [{ type: 'bundle', item: SMALL, quantity: 1 }] });
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.json().status, 'completed');
      t.clock.advance(1);
      const second = await post(org, { order: [{ type: 'bundle', item: BIG, quantity: 1 }] });
      assert.equal(second.statusCode, 200);
      const list = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/orders?perPage=1' });
      assert.equal(list.statusCode, 200);
      assert.equal(list.headers['x-total-count'], '2');
      assert.match(String(list.headers['link']), /rel="next"/);
      assert.deepEqual(
        list.json().map((o: { orderReference: string }) => o.orderReference),
        [second.json().orderReference],
      );
      const page2 = await t.request(org.apiKey, {
        method: 'GET',
        url: '/v2.1/orders?perPage=1&page=2',
      });
      assert.deepEqual(
        page2.json().map((o: { orderReference: string }) => o.orderReference),
        [first.json().orderReference],
      );
    });

    it('validate checks everything, charges nothing and stores nothing', async () => {
      const org = await t.createOrg({ balance: 1000 });
      const owned = (
        await post(await t.createOrg({ balance: 1000 }), {
          assign: true,
          order: [{ type: 'bundle', item: SMALL, quantity: 1 }],
        })
      ).json().order[0].iccids as string[];
      const tables = [
        'orders',
        'ledger_entries',
        'esims',
        'assignments',
        'inventory_batches',
      ] as const;
      const before = await Promise.all(tables.map(countRows));
      const ok = await post(org, {
        type: 'validate',
        order: [{ type: 'bundle', item: SMALL, quantity: 4 }],
      });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(ok.json().status, 'validated');
      assert.equal(ok.json().total, 1000);
      assert.equal(ok.json().orderReference, '');
      assert.match(ok.json().statusMessage, /nothing was charged/);
      const tooMuch = await post(org, {
        type: 'validate',
        order: [{ type: 'bundle', item: SMALL, quantity: 5 }],
      });
      assert.equal(tooMuch.statusCode, 400);
      assert.match(tooMuch.json().message, /insufficient balance/);
      const unknown = await post(org, {
        type: 'validate',
        order: [{ type: 'bundle', item: 'no_such_bundle', quantity: 1 }],
      });
      assert.equal(unknown.statusCode, 400);
      const withIccids = await post(org, {
        type: 'validate',
        assign: true,
        order: [{ type: 'bundle', item: SMALL, quantity: 1 }],
      });
      assert.equal(withIccids.statusCode, 200);
      assert.deepEqual(withIccids.json().order[0].iccids, []);
      const notOwned = await post(org, {
        type: 'validate',
        assign: true,
        order: [{ type: 'bundle', item: SMALL, quantity: 1, iccids: owned }],
      });
      assert.equal(notOwned.statusCode, 400);
      assert.match(notOwned.json().message, /order\[0\]\.iccids\[0\]: eSIM \d+ not found/);
      assert.equal(await balanceOf(org), 1000);
      assert.deepEqual(await ordersOf(org), []);
      assert.deepEqual(await inventoryOf(org), []);
      assert.deepEqual(
        (await t.request(org.apiKey, { method: 'GET', url: '/v2.1/esims' })).json().esims,
        [],
      );
      assert.deepEqual(await Promise.all(tables.map(countRows)), before);
    });

    it('issues eSIMs whose ICCIDs start with the time of issue, so they sort by it', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const iccids: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        const from = t.clock.now().getTime();
        const res = await post(org, {
          assign: true,
          order: [{ type: 'bundle', item: SMALL, quantity: 1 }],
        });
        assert.equal(res.statusCode, 200, res.body);
        const iccid: string = res.json().order[0].iccids[0];
        assert.ok(isValidIccid(iccid), iccid);
        // 89, then the milliseconds of issue (13 digits), three random digits, the check digit.
        const issued = Number(iccid.slice(2, 15));
        assert.ok(issued >= from && issued <= t.clock.now().getTime(), `${iccid} at ${from}`);
        iccids.push(iccid);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      assert.deepEqual([...iccids].sort(), iccids);
    });

    it('assigns onto new eSIMs: real eSIM records, bundles starting in Processing', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const res = await post(org, {
        assign: true,
        order: [{ type: 'bundle', item: SMALL, quantity: 2 }],
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.total, 500);
      assert.match(body.statusMessage, /2 bundles assigned \(2 new eSIMs\)/);
      const [line] = body.order;
      assert.equal(line.iccids.length, 2);
      assert.equal(line.esims.length, 2);
      for (const [i, esim] of line.esims.entries()) {
        assert.equal(esim.iccid, line.iccids[i]);
        assert.ok(isValidIccid(esim.iccid), esim.iccid);
        assert.match(esim.matchingId, /^[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}$/);
        assert.equal(esim.smdpAddress, t.config.smdpAddress);
        const profile = await t.request(org.apiKey, {
          method: 'GET',
          url: `/v2.1/esims/${esim.iccid}`,
        });
        assert.equal(profile.statusCode, 200, profile.body);
        assert.equal(profile.json().profileStatus, 'Released');
        assert.match(profile.json().pin, /^\d{4}$/);
        assert.match(profile.json().puk, /^\d{8}$/);
        const history = await t.request(org.apiKey, {
          method: 'GET',
          url: `/v2.1/esims/${esim.iccid}/history`,
        });
        const states = history.json().map((h: { bundleState: string }) => h.bundleState);
        assert.ok(states.includes('Processing'), JSON.stringify(states));
      }
      assert.notEqual(line.iccids[0], line.iccids[1]);
      const got = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/orders/${body.orderReference}`,
      });
      assert.deepEqual(got.json(), body);
      // Assigned units are not left in inventory.
      assert.deepEqual(await inventoryOf(org), []);
    });

    it('assigns onto listed eSIMs the organisation owns', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const issued = (
        await post(org, { assign: true, order: [{ type: 'bundle', item: SMALL, quantity: 2 }] })
      ).json().order[0].iccids as string[];
      const res = await post(org, {
        assign: true,
        order: [{ type: 'bundle', item: BIG, quantity: 2, iccids: issued }],
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json().order[0].iccids, issued);
      assert.match(res.json().statusMessage, /\(0 new eSIMs\)/);
      const bundles = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/esims/${issued[0]}/bundles`,
      });
      assert.equal(bundles.statusCode, 200, bundles.body);
      assert.ok(bundles.body.includes(BIG));
    });

    it('leaves no trace when a transaction fails half-way', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const other = await t.createOrg({ balance: 10_000 });
      const theirs = (
        await post(other, { assign: true, order: [{ type: 'bundle', item: SMALL, quantity: 1 }] })
      ).json().order[0].iccids as string[];
      const counts = async () =>
        Promise.all([
          countRows('orders'),
          countRows('esims'),
          countRows('assignments'),
          countRows('ledger_entries'),
        ]);
      const poor = await t.createOrg({ balance: 600 });
      const before = await counts();

      // An ICCID of another organisation on the last line: 400, as if it did not exist.
      const notOwned = await post(org, {
        assign: true,
        order: [
          { type: 'bundle', item: SMALL, quantity: 2 },
          { type: 'bundle', item: BIG, quantity: 1, iccids: theirs },
        ],
      });
      assert.equal(notOwned.statusCode, 400);
      assert.equal(notOwned.json().message, `order[1].iccids[0]: eSIM ${theirs[0]} not found`);

      // Funds run out after eSIMs were issued and assigned inside the transaction.
      const broke = await post(poor, {
        assign: true,
        order: [
          { type: 'bundle', item: SMALL, quantity: 2 },
          { type: 'bundle', item: BIG, quantity: 1 },
        ],
      });
      assert.equal(broke.statusCode, 400);
      assert.match(broke.json().message, /insufficient balance: the order total is 1500/);

      assert.deepEqual(await counts(), before);
      assert.equal(await balanceOf(org), 10_000);
      assert.equal(await balanceOf(poor), 600);
      assert.deepEqual(await ordersOf(org), []);
      assert.deepEqual(await inventoryOf(poor), []);
    });

    it('refuses bad lines with 400 naming the field', async () => {
      const org = await t.createOrg({ balance: 100_000 });
      const cases: [object, RegExp][] = [
        [{ order: [] }, /order/],
        [{}, /order is required/],
        [{ order: [{ type: 'bundle', item: SMALL, quantity: 0 }] }, /order\[0\]\.quantity/],
        [{ order: [{ type: 'bundle', item: SMALL, quantity: 21 }] }, /order\[0\]\.quantity/],
        [{ order: [{ type: 'bundle', item: SMALL, quantity: 1.5 }] }, /order\[0\]\.quantity/],
        [{ order: [{ type: 'esim', item: SMALL, quantity: 1 }] }, /order\[0\]\.type/],
        [{ type: 'later', order: [{ type: 'bundle', item: SMALL, quantity: 1 }] }, /type/],
        [
          {
            order: [
              { type: 'bundle', item: SMALL, quantity: 20 },
              { type: 'bundle', item: BIG, quantity: 11 },
            ],
          },
          /at most 30 units per order/,
        ],
        [
          {
            order: Array.from({ length: 4 }, () => ({ type: 'bundle', item: SMALL, quantity: 1 })),
          },
          /order/,
        ],
        [
          {
            order: [{ type: 'bundle', item: SMALL, quantity: 1, iccids: ['8944000000000000000'] }],
          },
          /order\[0\]\.iccids is only allowed with assign: true/,
        ],
        [
          {
            assign: true,
            order: [{ type: 'bundle', item: SMALL, quantity: 2, iccids: ['8944000000000000000'] }],
          },
          /order\[0\]\.iccids lists 1 eSIMs but quantity is 2/,
        ],
        [
          {
            assign: true,
            order: [{ type: 'bundle', item: SMALL, quantity: 1, iccids: ['8944000000000000002'] }],
          },
          /^order\[0\]\.iccids\[0\] "8944000000000000002" is not an ICCID: expected 19 digits starting 89 with a valid Luhn check digit$/,
        ],
      ];
      for (const [payload, message] of cases) {
        const res = await post(org, payload);
        assert.equal(res.statusCode, 400, `${JSON.stringify(payload)} -> ${res.body}`);
        assert.match(res.json().message, message, JSON.stringify(payload));
      }
      // A malformed ICCID in the body is invalid_iccid, as in a path (docs/errors.md); a count
      // that does not match is bad_request.
      const malformed = await post(org, {
        assign: true,
        order: [
          { type: 'bundle', item: SMALL, quantity: 1 },
          {
            type: 'bundle',
            item: SMALL,
            quantity: 2,
            iccids: ['8944000000000000001', '89440000000000000'],
          },
        ],
      });
      assert.deepEqual(malformed.json(), {
        message:
          'order[1].iccids[1] "89440000000000000" is not an ICCID: expected 19 digits starting 89 with a valid Luhn check digit',
        code: 'invalid_iccid',
      });
      const miscounted = await post(org, {
        assign: true,
        order: [{ type: 'bundle', item: SMALL, quantity: 2, iccids: ['8944000000000000000'] }],
      });
      assert.equal(miscounted.json().code, 'bad_request');
      // The codes docs/errors.md gives: a line above the line limit breaks the schema; an order
      // above the order limit is quantity_limit.
      const line = await post(org, { order: [{ type: 'bundle', item: SMALL, quantity: 21 }] });
      assert.equal(line.json().code, 'validation_failed');
      const total = await post(org, {
        order: [
          { type: 'bundle', item: SMALL, quantity: 20 },
          { type: 'bundle', item: BIG, quantity: 11 },
        ],
      });
      assert.equal(total.json().code, 'quantity_limit');
      assert.equal(await balanceOf(org), 100_000);
    });

    it('treats a bundle outside the organisation groups exactly like an unknown one', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const promo = await post(org, { order: [{ type: 'bundle', item: PROMO, quantity: 1 }] });
      const unknown = await post(org, { order: [{ type: 'bundle', item: 'nope', quantity: 1 }] });
      assert.equal(promo.statusCode, 400);
      assert.equal(unknown.statusCode, 400);
      assert.equal(
        promo.json().message,
        `order[0].item: bundle "${PROMO}" is not available to this organisation`,
      );
      assert.equal(
        unknown.json().message,
        'order[0].item: bundle "nope" is not available to this organisation',
      );
      const member = await t.createOrg({ balance: 10_000, groups: ['Promo'] });
      const ok = await post(member, { order: [{ type: 'bundle', item: PROMO, quantity: 1 }] });
      assert.equal(ok.statusCode, 200, ok.body);
    });

    it('spends test credit before balance', async () => {
      const org = await t.createOrg({ balance: 1000, testCredit: 300 });
      const res = await post(org, { order: [{ type: 'bundle', item: SMALL, quantity: 2 }] });
      assert.equal(res.statusCode, 200, res.body);
      const o = (await t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' })).json()
        .organisations[0];
      assert.equal(o.testCredit, 0);
      assert.equal(o.balance, 800);
      const verify = await runCli(['ledger', 'verify'], f.env);
      assert.equal(verify.code, 0, verify.err);
    });

    it('hides orders and inventory of other organisations, even by reference', async () => {
      const owner = await t.createOrg({ balance: 10_000 });
      const snoop = await t.createOrg({ balance: 10_000 });
      const placed = await post(owner, { order: [{ type: 'bundle', item: SMALL, quantity: 1 }] });
      const ref = placed.json().orderReference;
      const guessed = await t.request(snoop.apiKey, { method: 'GET', url: `/v2.1/orders/${ref}` });
      const missing = await t.request(snoop.apiKey, {
        method: 'GET',
        url: '/v2.1/orders/00000000-0000-4000-8000-000000000000',
      });
      assert.equal(guessed.statusCode, 404);
      assert.equal(missing.statusCode, 404);
      assert.equal(guessed.json().message, `order ${ref} not found`);
      assert.equal(missing.json().message, 'order 00000000-0000-4000-8000-000000000000 not found');
      assert.deepEqual(await ordersOf(snoop), []);
      assert.deepEqual(await inventoryOf(snoop), []);
      const mine = await t.request(owner.apiKey, { method: 'GET', url: `/v2.1/orders/${ref}` });
      assert.equal(mine.statusCode, 200);
    });

    it('refuses the api_key query parameter on POST and requires a key', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const res = await t.app.inject({
        method: 'POST',
        url: `/v2.1/orders?api_key=${encodeURIComponent(org.apiKey)}`,
        payload: { order: [{ type: 'bundle', item: SMALL, quantity: 1 }] },
      });
      assert.equal(res.statusCode, 403);
      const none = await t.app.inject({
        method: 'POST',
        url: '/v2.1/orders',
        payload: { order: [{ type: 'bundle', item: SMALL, quantity: 1 }] },
      });
      assert.equal(none.statusCode, 403);
      assert.equal(await balanceOf(org), 10_000);
    });
  });
}
