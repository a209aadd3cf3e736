import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { saveCard } from '../../src/domain/money/save-card.js';
import { VERSIONS } from '../../src/http/versions/index.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { addBundles, fixtureBundle } from '../fixtures/orders.js';

// An Idempotency-Key repeat is answered the bytes the first request was, on every version: the
// order, the inventory refund and the top-up, a refusal in the version's money too, and a record
// an earlier release wrote (v2.1's body whichever version was asked) in the version's shape.

const BUNDLE = 'test_versions_replay';

for (const kind of DATABASES) {
  describe(`replays on every version [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let poor: TestOrg;

    before(async () => {
      t = await startTestApp(kind);
      await addBundles(t, [fixtureBundle(BUNDLE, 999)]);
      org = await t.createOrg({ balance: 1_000_000 });
      poor = await t.createOrg({ balance: 100 });
      await saveCard(t.deps, org.id, { number: '4242424242424242', expMonth: 12, expYear: 2099 });
    });
    after(() => t.close());

    const post = (key: string, url: string, payload?: object, apiKey = org.apiKey) =>
      t.request(apiKey, {
        method: 'POST',
        url,
        headers: { 'idempotency-key': key },
        ...(payload === undefined ? {} : { payload }),
      });

    /** The first answer and its repeat: the same status and bytes, the repeat marked. */
    async function twice(key: string, url: string, payload?: object, apiKey?: string) {
      const first = await post(key, url, payload, apiKey);
      const again = await post(key, url, payload, apiKey);
      assert.equal(again.headers['idempotent-replayed'], 'true', again.body);
      assert.equal(again.statusCode, first.statusCode);
      assert.equal(again.body, first.body);
      return first;
    }

    for (const { name, prefix } of VERSIONS) {
      it(`v${name}: an order, a refund and a top-up are replayed byte for byte`, async () => {
        const line = (quantity: number) => [{ type: 'bundle', item: BUNDLE, quantity }];
        const order = { type: 'transaction', assign: true, order: line(1) };
        const placed = await twice(`order-${name}`, `${prefix}/orders`, order);
        assert.equal(placed.statusCode, 200, placed.body);
        const stocked = await post(`stock-${name}`, `${prefix}/orders`, {
          type: 'transaction',
          order: line(2),
        });
        const { orderReference } = stocked.json<{ orderReference: string }>();
        const inventory = await t.request(org.apiKey, {
          method: 'GET',
          url: `${prefix}/inventory`,
        });
        const batch = inventory
          .json<{ bundles: { available: { id: number; total: number; remaining: number }[] }[] }>()
          .bundles.flatMap((b) => b.available)
          .find((a) => a.total === 2 && a.remaining === 2);
        const refund = { usageId: batch?.id, quantity: 1 };
        const refunded = await twice(`refund-${name}`, `${prefix}/inventory/refund`, refund);
        assert.equal(refunded.statusCode, 200, refunded.body);
        assert.equal(refunded.json<{ orderReference: string }>().orderReference, orderReference);
        const amount = name >= '2.4' ? '10.00' : '1000';
        const topUp = await twice(
          `top-up-${name}`,
          `${prefix}/organisation/balance?amount=${amount}`,
        );
        assert.equal(topUp.statusCode, 200, topUp.body);
      });

      it(`v${name}: a refusal is replayed in the version's money`, async () => {
        const order = {
          type: 'transaction',
          order: [{ type: 'bundle', item: BUNDLE, quantity: 1 }],
        };
        const refused = await twice(`refused-${name}`, `${prefix}/orders`, order, poor.apiKey);
        assert.equal(refused.statusCode, 400);
        const { message } = refused.json<{ message: string }>();
        const major = name >= '2.4';
        assert.match(
          message,
          major ? / 9\.99 USD but only 1\.00 / : / 999 USD minor units but only 100 /,
        );
      });
    }

    it('replays a record an earlier release wrote (v2.1’s body) in the version’s shape', async () => {
      const order = {
        type: 'transaction',
        assign: true,
        order: [{ type: 'bundle', item: BUNDLE, quantity: 1, allowReassign: true }],
      };
      const key = 'earlier-release';
      const first = await post(key, '/v2.4/orders', order);
      assert.equal(first.statusCode, 200, first.body);
      const { orderReference } = first.json<{ orderReference: string }>();
      // What an earlier release stored for the same request: v2.1's body of the order.
      const v21 = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/orders/${orderReference}`,
      });
      await t.deps.store.db
        .updateTable('idempotency_keys')
        .set({ response_body: v21.body })
        .where('organisation_id', '=', org.id)
        .where('idem_key', '=', key)
        .execute();
      const again = await post(key, '/v2.4/orders', order);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body, first.body);
    });
  });
}
