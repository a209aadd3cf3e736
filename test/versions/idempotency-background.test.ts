import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runDeferredRequests } from '../../src/domain/deferred/process.js';
import { FR_1MB, getJson, seedTestBundles } from '../esim-fixtures.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// One Idempotency-Key is one request, whether the order is placed at once (up to five bundles) or
// in the background (more, from v2.2): the same key with another body is a 409
// `idempotency_key_reused` in both directions, while the background order waits and after it
// was placed, and two such requests at once place one order. The harness runs no workers: the
// background turn is run here.

const order = (quantity: number) => ({
  type: 'transaction',
  assign: true,
  order: [{ type: 'bundle', item: FR_1MB.name, quantity }],
});

for (const kind of DATABASES) {
  describe(`an Idempotency-Key across background and immediate orders [${kind}]`, () => {
    let t: TestApp;

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
    });
    after(() => t.close());

    const post = (org: TestOrg, quantity: number, key: string) =>
      t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.5/orders',
        payload: order(quantity),
        headers: { 'idempotency-key': key },
      });
    const charged = async (org: TestOrg): Promise<number> => {
      const body = (await getJson(t, org, '/v2.1/organisation')) as {
        organisations: { balance: number }[];
      };
      return 100_000 - (body.organisations[0]?.balance ?? NaN);
    };
    const work = () => runDeferredRequests(t.deps, 'test-worker');
    const reused = (res: { statusCode: number; body: string }, what: string) => {
      assert.equal(res.statusCode, 409, `${what}: ${res.body}`);
      assert.equal(JSON.parse(res.body).code, 'idempotency_key_reused', what);
    };

    it('refuses a background order under the key of an order placed at once', async () => {
      const org = await t.createOrg({ balance: 100_000 });
      assert.equal((await post(org, 1, 'K')).statusCode, 200);
      reused(await post(org, 7, 'K'), 'seven after one');
      await work();
      reused(await post(org, 7, 'K'), 'seven after one, again');
      assert.equal(await charged(org), FR_1MB.price);
    });

    it('refuses an order placed at once under the key of a background order, before and after it is placed', async () => {
      const org = await t.createOrg({ balance: 100_000 });
      assert.equal((await post(org, 7, 'K')).statusCode, 503);
      reused(await post(org, 1, 'K'), 'one while seven waits');
      assert.equal((await work()).done, 1);
      reused(await post(org, 1, 'K'), 'one after seven was placed');
      const done = await post(org, 7, 'K');
      assert.equal(done.statusCode, 200, done.body);
      assert.equal(await charged(org), 7 * FR_1MB.price);
    });

    it('places one of two orders sent at once with one key and different bodies', async () => {
      const org = await t.createOrg({ balance: 100_000 });
      const [small, large] = await Promise.all([post(org, 1, 'K'), post(org, 7, 'K')]);
      const statuses = [small.statusCode, large.statusCode].sort();
      assert.ok(
        JSON.stringify(statuses) === '[200,409]' || JSON.stringify(statuses) === '[409,503]',
        `one accepted, one refused: ${small.body} / ${large.body}`,
      );
      await work();
      const spent = await charged(org);
      assert.ok(spent === FR_1MB.price || spent === 7 * FR_1MB.price, `charged ${spent}`);
    });
  });
}
