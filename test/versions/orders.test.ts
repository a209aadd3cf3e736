import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { addBundles, fixtureBundle } from '../fixtures/orders.js';

// Orders through every version: one placement use case, five wire shapes; an order placed
// through one version reads through every other.

const BUNDLE = 'test_versions_order';

for (const kind of DATABASES) {
  describe(`orders on every version [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let other: TestOrg;

    before(async () => {
      t = await startTestApp(kind);
      await addBundles(t, [fixtureBundle(BUNDLE, 999)]);
      org = await t.createOrg({ balance: 100_000 });
      other = await t.createOrg({ balance: 100_000 });
    });
    after(() => t.close());

    const post = (version: string, payload: unknown, headers: Record<string, string> = {}) =>
      t.request(org.apiKey, {
        method: 'POST',
        url: `/v${version}/orders`,
        payload: payload as object,
        headers,
      });

    it('places through /v2.1 and reads through /v2.5 in v2.5 shape, money in major units', async () => {
      const placed = await post('2.1', {
        type: 'transaction',
        assign: true,
        order: [{ type: 'bundle', item: BUNDLE, quantity: 1 }],
      });
      assert.equal(placed.statusCode, 200, placed.body);
      const v21 = placed.json<{ orderReference: string; createDate: string; total: number }>();
      assert.equal(v21.total, 999);
      const read = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.5/orders/${v21.orderReference}`,
      });
      assert.equal(read.statusCode, 200, read.body);
      const v25 = read.json<Record<string, unknown>>();
      assert.deepEqual(Object.keys(v25), [
        'order',
        'total',
        'currency',
        'status',
        'statusMessage',
        'orderReference',
        'createdDate',
        'assigned',
      ]);
      assert.equal(v25['total'], 9.99);
      assert.equal(v25['createdDate'], v21.createDate);
      assert.equal(v25['assigned'], true);
      const [line] = v25['order'] as Record<string, unknown>[];
      assert.deepEqual(Object.keys(line ?? {}), [
        'esims',
        'type',
        'item',
        'iccids',
        'quantity',
        'subTotal',
        'pricePerUnit',
        'AllowReassign',
      ]);
      assert.equal(line?.['pricePerUnit'], 9.99);
    });

    it('places through /v2.5 (flat quick-start body, no Content-Type) and reads through /v2.1', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2.5/orders',
        headers: { 'x-api-key': org.apiKey },
        payload: JSON.stringify({ type: 'transaction', quantity: 2, item: BUNDLE, assign: false }),
      });
      assert.equal(res.statusCode, 200, res.body);
      const v25 = res.json<Record<string, unknown>>();
      assert.equal(v25['total'], 19.98);
      assert.equal(v25['sourceIP'], '127.0.0.1');
      const read = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/orders/${String(v25['orderReference'])}`,
      });
      assert.equal(read.statusCode, 200, read.body);
      assert.equal(read.json<{ total: number }>().total, 1998);
      const foreign = await t.request(other.apiKey, {
        method: 'GET',
        url: `/v2.5/orders/${String(v25['orderReference'])}`,
      });
      assert.equal(foreign.statusCode, 404);
    });

    it('answers a validation with valid: true on v2.4 and takes the capital Order key', async () => {
      const res = await post('2.4', {
        type: 'validate',
        Order: [{ type: 'bundle', item: BUNDLE, quantity: 1 }],
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json<Record<string, unknown>>();
      assert.deepEqual(Object.keys(body), [
        'order',
        'total',
        'valid',
        'currency',
        'createdDate',
        'assigned',
      ]);
      assert.equal(body['valid'], true);
    });

    it('still refuses a body without Content-Type on v2.1 (415)', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2.1/orders',
        headers: { 'x-api-key': org.apiKey },
        payload: JSON.stringify({ order: [{ type: 'bundle', item: BUNDLE, quantity: 1 }] }),
      });
      assert.equal(res.statusCode, 415);
    });

    it('refuses an order with neither lines nor item (400)', async () => {
      const res = await post('2.3', { type: 'transaction' });
      assert.equal(res.statusCode, 400);
      assert.match(res.json<{ message: string }>().message, /order is required/);
    });

    it('refuses a profileID that is not a UUID on v2.5 as live does', async () => {
      const res = await post('2.5', {
        type: 'validate',
        assign: true,
        profileID: 'not-a-uuid-of-length22',
        order: [{ type: 'bundle', item: BUNDLE, quantity: 1 }],
      });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json<{ message: string }>().message, 'invalid UUID length: 22');
    });

    it('answers runningBalance on v2.5: the balance the order left, in major units like total', async () => {
      const before = (
        await t.request(org.apiKey, { method: 'GET', url: '/v2.4/organisation' })
      ).json<{
        balance: number;
      }>();
      const res = await post('2.5', {
        type: 'transaction',
        order: [{ type: 'bundle', item: BUNDLE, quantity: 1 }],
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json<Record<string, unknown>>();
      assert.equal(body['runningBalance'], Number((before.balance - 9.99).toFixed(2)));
      assert.equal(typeof body['runningBalance'], typeof body['total']);
      assert.deepEqual(Object.keys(body).slice(-2), ['sourceIP', 'runningBalance']);
    });

    it('runningBalance of a replay is the first answer\u2019s, whatever was ordered since', async () => {
      const payload = {
        type: 'transaction',
        order: [{ type: 'bundle', item: BUNDLE, quantity: 1 }],
      };
      const headers = { 'idempotency-key': 'running-balance-replay' };
      const first = await post('2.5', payload, headers);
      assert.equal(first.statusCode, 200, first.body);
      const later = await post('2.5', payload);
      const again = await post('2.5', payload, headers);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      const balance = (r: typeof first) => r.json<{ runningBalance: number }>().runningBalance;
      assert.equal(balance(again), balance(first));
      assert.equal(balance(later), Number((balance(first) - 9.99).toFixed(2)));
    });

    it('replays an Idempotency-Key in the version shape', async () => {
      const payload = {
        type: 'transaction',
        order: [{ type: 'bundle', item: BUNDLE, quantity: 1 }],
      };
      const headers = { 'idempotency-key': 'versions-replay-1' };
      const first = await post('2.4', payload, headers);
      assert.equal(first.statusCode, 200, first.body);
      const again = await post('2.4', payload, headers);
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      const a = first.json<Record<string, unknown>>();
      const b = again.json<Record<string, unknown>>();
      assert.equal(b['orderReference'], a['orderReference']);
      assert.equal(b['total'], 9.99);
      assert.equal(b['createdDate'], a['createdDate']);
    });

    it('serves one OpenAPI document per version', async () => {
      for (const version of ['2.2', '2.3', '2.4', '2.5']) {
        const res = await t.app.inject({ url: `/v${version}/openapi.json` });
        assert.equal(res.statusCode, 200);
        const doc = res.json<{ info: { version: string }; paths: Record<string, unknown> }>();
        assert.equal(doc.info.version, `${version}.0`);
        const paths = Object.keys(doc.paths);
        assert.ok(paths.length > 20);
        assert.ok(
          paths.every((p) => p.startsWith(`/v${version}/`)),
          paths.join(),
        );
      }
    });
  });
}
