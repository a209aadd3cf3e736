import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runDeferredRequests } from '../../src/domain/deferred/process.js';
import { FR_1MB, buy, getJson, seedTestBundles } from '../esim-fixtures.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// Orders and applies of more than five bundles on v2.2 and later: accepted, answered 503 with
// Retry-After while the background worker places them, then answered complete, charged once.
// The worker's turns are run here directly (the harness starts no workers).

const PROCESSING = 'Processing - come back later or use the Retry-After (seconds) header';

const order = (quantity: number) => ({
  type: 'transaction',
  assign: true,
  order: [{ type: 'bundle', item: FR_1MB.name, quantity }],
});

for (const kind of DATABASES) {
  describe(`orders of more than five bundles in the background [${kind}]`, () => {
    let t: TestApp;

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
    });
    after(() => t.close());

    const post = (org: TestOrg, version: string, payload: object, key?: string) =>
      t.request(org.apiKey, {
        method: 'POST',
        url: `/v${version}/orders`,
        payload,
        headers: key === undefined ? {} : { 'idempotency-key': key },
      });
    const balanceOf = async (org: TestOrg): Promise<number> => {
      const body = (await getJson(t, org, '/v2.1/organisation')) as {
        organisations: { balance: number }[];
      };
      return body.organisations[0]?.balance ?? NaN;
    };
    const work = () => runDeferredRequests(t.deps, 'test-worker');

    /** A 503 while processing; it names the reference the order (or apply) will have. */
    const assertProcessing = (res: {
      statusCode: number;
      headers: Record<string, unknown>;
      json: () => unknown;
    }): string => {
      assert.equal(res.statusCode, 503);
      assert.equal(res.headers['retry-after'], '2');
      const body = res.json() as { message: string; code: string; orderReference?: string };
      assert.deepEqual(
        { message: body.message, code: body.code },
        { message: PROCESSING, code: 'processing' },
      );
      assert.match(body.orderReference ?? '', /^[0-9a-f-]{36}$/);
      return body.orderReference ?? '';
    };

    it('v2.2: 503 while processing, then the same order complete, charged once', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const reference = assertProcessing(await post(org, '2.2', order(6), 'six'));
      assert.equal(assertProcessing(await post(org, '2.2', order(6), 'six')), reference);
      // The reference of the 503 is polled: processing, then the order.
      const poll = () => t.request(org.apiKey, { url: `/v2.2/orders/${reference}` });
      assert.equal(assertProcessing(await poll()), reference);
      assert.equal(await balanceOf(org), 10_000);
      assert.equal((await work()).done, 1);
      const polled = await poll();
      assert.equal(polled.statusCode, 200, polled.body);
      assert.equal(polled.json<{ orderReference: string }>().orderReference, reference);
      const done = await post(org, '2.2', order(6), 'six');
      assert.equal(done.statusCode, 200, done.body);
      const body = done.json<{
        orderReference: string;
        total: number;
        assigned: boolean;
        order: { iccids: string[] }[];
      }>();
      assert.equal(body.orderReference, reference);
      assert.equal(body.total, 600);
      assert.equal(body.assigned, true);
      assert.equal(body.order[0]?.iccids.length, 6);
      const again = await post(org, '2.2', order(6), 'six');
      assert.equal(again.json<{ orderReference: string }>().orderReference, body.orderReference);
      assert.equal(await balanceOf(org), 10_000 - 600);
      // Readable through every version, v2.1 included.
      const v21 = (await getJson(t, org, `/v2.1/orders/${body.orderReference}`)) as {
        total: number;
      };
      assert.equal(v21.total, 600);
    });

    it('five bundles, and every order on v2.1, are placed at once', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      assert.equal((await post(org, '2.2', order(5))).statusCode, 200);
      assert.equal((await post(org, '2.1', order(6))).statusCode, 200);
      assert.equal(await balanceOf(org), 10_000 - 1_100);
    });

    it('a retry without a key is the same order until answered; then the same body is a new one', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      assertProcessing(await post(org, '2.4', order(6)));
      assertProcessing(await post(org, '2.4', order(6)));
      await work();
      const done = await post(org, '2.4', order(6));
      assert.equal(done.statusCode, 200, done.body);
      assert.equal(done.json<{ total: number }>().total, 6); // v2.4: major units
      assertProcessing(await post(org, '2.4', order(6)));
      await work();
      assert.equal((await post(org, '2.4', order(6))).statusCode, 200);
      assert.equal(await balanceOf(org), 10_000 - 1_200);
    });

    it('concurrent retries with one key place one order', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const first = await Promise.all(
        Array.from({ length: 6 }, () => post(org, '2.3', order(7), 'seven')),
      );
      first.forEach(assertProcessing);
      await Promise.all([work(), work()]);
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => post(org, '2.3', order(7), 'seven')),
      );
      const references = new Set(
        answers.map((a) => a.json<{ orderReference: string }>().orderReference),
      );
      assert.equal(references.size, 1);
      assert.equal(await balanceOf(org), 10_000 - 700);
    });

    it('bad input is refused at once; a refusal met in the background is the retry\u2019s answer', async () => {
      const org = await t.createOrg({ balance: 700 });
      const unknown = await post(org, '2.2', {
        ...order(6),
        order: [{ type: 'bundle', item: 'nope', quantity: 6 }],
      });
      assert.equal(unknown.statusCode, 400);
      assertProcessing(await post(org, '2.2', order(6), 'poor'));
      await buy(t, org, FR_1MB.name, { quantity: 2 });
      await work();
      const refused = await post(org, '2.2', order(6), 'poor');
      assert.equal(refused.statusCode, 400);
      assert.equal(refused.json<{ code: string }>().code, 'insufficient_balance');
      assert.equal(await balanceOf(org), 500);
    });

    it('applies of more than five bundles too', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      await buy(t, org, FR_1MB.name, { quantity: 6, assign: false });
      const apply = () =>
        t.request(org.apiKey, {
          method: 'POST',
          url: '/v2.2/esims/apply',
          payload: { name: FR_1MB.name, repeat: 6 },
          headers: { 'idempotency-key': 'apply-six' },
        });
      assertProcessing(await apply());
      await work();
      const done = await apply();
      assert.equal(done.statusCode, 200, done.body);
      const body = done.json<{ applyReference: string; esims: { iccid: string }[] }>();
      assert.equal(body.esims.length, 6);
      assert.equal(new Set(body.esims.map((e) => e.iccid)).size, 1);
      assert.equal(
        (await apply()).json<{ applyReference: string }>().applyReference,
        body.applyReference,
      );
    });
  });
}
