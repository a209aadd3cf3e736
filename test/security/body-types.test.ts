import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addBundles, fixtureBundle } from '../fixtures/orders.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { buildApp } from '../../src/app.js';
import { saveCard } from '../../src/domain/money/save-card.js';

// Input as the live service reads it: JSON body fields keep their JSON types (no coercion of
// strings, booleans or arrays into numbers), unknown body fields are ignored, field names match
// case-insensitively, a route that takes no body accepts an empty one under any content type,
// and query parameters keep their documented string forms.

const BUNDLE = 'esim_body_1GB_7D_GB_V2';
const PRICE = 250;

async function balanceOf(t: TestApp, org: TestOrg): Promise<number> {
  const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' });
  return res.json().organisations[0].balance;
}

async function inventoryUnits(t: TestApp, org: TestOrg): Promise<number> {
  const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/inventory' });
  const bundles = res.json().bundles as { available: { remaining: number }[] }[];
  return bundles.flatMap((b) => b.available).reduce((sum, a) => sum + a.remaining, 0);
}

const order = (t: TestApp, org: TestOrg, payload: unknown) =>
  t.request(org.apiKey, {
    method: 'POST',
    url: '/v2.1/orders',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(payload),
  });

for (const kind of DATABASES) {
  describe(`body and query types [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      t = await startTestApp(kind, { topUpMin: 500, topUpMax: 100_000 });
      await addBundles(t, [fixtureBundle(BUNDLE, PRICE)]);
      org = await t.createOrg({ balance: 100_000 });
      await saveCard(t.deps, org.id, { number: '4242424242424242', expMonth: 12, expYear: 2099 });
    });
    after(() => t.close());

    it('refuses an order quantity that is not a JSON integer, charging nothing', async () => {
      const before = await balanceOf(t, org);
      for (const quantity of [true, [1], '2', '1', 1.5, null, { n: 1 }]) {
        const res = await order(t, org, {
          type: 'transaction',
          order: [{ type: 'bundle', item: BUNDLE, quantity }],
        });
        assert.equal(res.statusCode, 400, JSON.stringify(quantity));
        assert.match(res.json().message, /order\[0\]\.quantity/, JSON.stringify(quantity));
      }
      assert.equal(await balanceOf(t, org), before);
      assert.equal(await inventoryUnits(t, org), 0);
    });

    it('refuses other body fields of the wrong JSON type, naming them', async () => {
      const cases: [unknown, RegExp][] = [
        [
          {
            type: 'transaction',
            assign: 'false',
            order: [{ type: 'bundle', item: BUNDLE, quantity: 1 }],
          },
          /assign/,
        ],
        [
          {
            type: 'transaction',
            assign: 0,
            order: [{ type: 'bundle', item: BUNDLE, quantity: 1 }],
          },
          /assign/,
        ],
        [
          { type: 'transaction', order: [{ type: 'bundle', item: 7, quantity: 1 }] },
          /order\[0\]\.item/,
        ],
        [{ type: 'transaction', order: { type: 'bundle', item: BUNDLE, quantity: 1 } }, /order/],
      ];
      for (const [payload, field] of cases) {
        const res = await order(t, org, payload);
        assert.equal(res.statusCode, 400, JSON.stringify(payload));
        assert.match(res.json().message, field);
      }
    });

    it('charges a quantity sent as a JSON integer exactly', async () => {
      const before = await balanceOf(t, org);
      const res = await order(t, org, {
        type: 'transaction',
        order: [{ type: 'bundle', item: BUNDLE, quantity: 2 }],
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().total, 2 * PRICE);
      assert.equal(await balanceOf(t, org), before - 2 * PRICE);
    });

    it('refuses a top-up amount that is not digits only, naming amount, changing nothing', async () => {
      const before = await balanceOf(t, org);
      for (const amount of [' 500', '500 ', '+500', '0500', '-500', '5_00', '５００', '500.0']) {
        const res = await t.request(org.apiKey, {
          method: 'POST',
          url: `/v2.1/organisation/balance?amount=${encodeURIComponent(amount)}`,
        });
        assert.equal(res.statusCode, 400, JSON.stringify(amount));
        assert.match(res.json().message, /amount/);
        assert.equal(res.json().code, 'invalid_amount');
      }
      assert.equal(await balanceOf(t, org), before);
    });

    it('accepts an empty body under any content type on the top-up, which takes none', async () => {
      let expected = await balanceOf(t, org);
      for (const type of [
        'application/x-www-form-urlencoded',
        'application/json',
        'application/json; charset=utf-8',
        'text/plain',
        'application/octet-stream',
        undefined,
      ]) {
        const res = await t.request(org.apiKey, {
          method: 'POST',
          url: '/v2.1/organisation/balance?amount=1000',
          headers: type === undefined ? {} : { 'content-type': type },
          payload: '',
        });
        assert.equal(res.statusCode, 200, `${String(type)}: ${res.body}`);
        expected += 1000;
        assert.equal(res.json().balance, expected);
      }
    });

    it('still refuses a non-empty body of another type (415) and an empty one where a body is needed (400)', async () => {
      const form = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/organisation/balance?amount=1000',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'amount=1000',
      });
      assert.equal(form.statusCode, 415);
      assert.match(form.json().message, /application\/json/);
      const empty = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        headers: { 'content-type': 'application/json' },
        payload: '',
      });
      assert.equal(empty.statusCode, 400);
      assert.match(empty.json().message, /empty/);
    });

    it('ignores unknown body fields and keeps validating the known ones', async () => {
      const res = await order(t, org, {
        type: 'validate',
        profileID: 'brand-1',
        order: [{ type: 'bundle', item: BUNDLE, quantity: 1, allowReassign: false, offerId: 'x' }],
        somethingNew: { nested: true },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().status, 'validated');
      const bad = await order(t, org, {
        type: 'validate',
        somethingNew: 1,
        order: [{ type: 'bundle', item: BUNDLE, quantity: '1', futureField: 1 }],
      });
      assert.equal(bad.statusCode, 400);
      assert.match(bad.json().message, /order\[0\]\.quantity/);
    });

    it('lists the ignored fields at debug level', async () => {
      const lines: string[] = [];
      const app = await buildApp(t.deps, {
        logLevel: 'debug',
        logStream: { write: (line) => void lines.push(line) },
      });
      try {
        const res = await app.inject({
          method: 'POST',
          url: '/v2.1/orders',
          headers: { 'x-api-key': org.apiKey, 'content-type': 'application/json' },
          payload: JSON.stringify({
            type: 'validate',
            profileID: 'brand-1',
            order: [{ type: 'bundle', item: BUNDLE, quantity: 1, offerId: 'spring' }],
          }),
        });
        assert.equal(res.statusCode, 200, res.body);
      } finally {
        await app.close();
      }
      const logged = lines
        .map((l) => JSON.parse(l) as { msg?: string; ignoredFields?: string[] })
        .find((l) => l.msg === 'ignored unknown body fields');
      assert.deepEqual(logged?.ignoredFields, ['profileID', 'order[0].offerId']);
    });

    it('applies with allowReassign: false (a field of later versions of the interface)', async () => {
      const bought = await order(t, org, {
        type: 'transaction',
        order: [{ type: 'bundle', item: BUNDLE, quantity: 1 }],
      });
      assert.equal(bought.statusCode, 200, bought.body);
      const res = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/esims/apply',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ name: BUNDLE, allowReassign: false }),
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().esims.length, 1);
    });

    it('matches body field names case-insensitively, the exact spelling winning', async () => {
      const before = await balanceOf(t, org);
      const res = await order(t, org, {
        Type: 'transaction',
        Order: [{ Type: 'bundle', ITEM: BUNDLE, Quantity: 1 }],
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().total, PRICE);
      assert.equal(await balanceOf(t, org), before - PRICE);
      const both = await order(t, org, {
        type: 'validate',
        order: [{ type: 'bundle', item: BUNDLE, quantity: 1 }],
        Order: [{ type: 'bundle', item: 'no-such-bundle', quantity: 1 }],
      });
      assert.equal(both.statusCode, 200, both.body);
      assert.equal(both.json().order[0].item, BUNDLE);
      const wrongType = await order(t, org, {
        Type: 'validate',
        Order: [{ type: 'bundle', item: BUNDLE, Quantity: '1' }],
      });
      assert.equal(wrongType.statusCode, 400);
      assert.match(wrongType.json().message, /order\[0\]\.quantity/);
    });

    it('keeps the documented string forms of query parameters', async () => {
      const res = await t.request(org.apiKey, {
        method: 'GET',
        url: '/v2.1/catalogue?perPage=10&page=1',
      });
      assert.equal(res.statusCode, 200);
      const bad = await t.request(org.apiKey, {
        method: 'GET',
        url: '/v2.1/catalogue?perPage=ten',
      });
      assert.equal(bad.statusCode, 400);
      assert.match(bad.json().message, /perPage/);
    });
  });
}
