import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';
import type { FileBackedApp, ServerProcess } from '../../../../test/fixtures/orders.js';
import {
  addBundles,
  fixtureBundle,
  runCli,
  startFileBackedApp,
  startServerProcesses,
} from '../../../../test/fixtures/orders.js';

const UNIT = 'test_concurrency_unit';
const PRICE = 100;
const ORDER = {
  type: 'transaction',
  assign: false,
  order: [{ type: 'bundle', item: UNIT, quantity: 1 }],
};

async function journalKinds(t: TestApp, org: TestOrg): Promise<string[]> {
  const rows = await t.deps.store.db
    .selectFrom('ledger_entries')
    .select('kind')
    .where('organisation_id', '=', org.id)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.kind);
}

async function balanceOf(t: TestApp, org: TestOrg): Promise<number> {
  const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' });
  return res.json().organisations[0].balance;
}

function assertExactlyHundred(statuses: { status: number; message?: string }[]): void {
  const ok = statuses.filter((s) => s.status === 200).length;
  const refused = statuses.filter((s) => s.status === 400);
  assert.equal(ok, 100, `succeeded: ${ok}`);
  assert.equal(
    refused.length,
    100,
    JSON.stringify(statuses.filter((s) => s.status !== 200 && s.status !== 400)),
  );
  for (const r of refused) assert.match(r.message ?? '', /^insufficient balance: /);
}

for (const kind of DATABASES) {
  describe(`orders under concurrency [${kind}]`, () => {
    let f: FileBackedApp;
    let t: TestApp;

    before(async () => {
      f = await startFileBackedApp(kind);
      t = f.t;
      await addBundles(t, [fixtureBundle(UNIT, PRICE)]);
    });
    after(() => f.close());

    it('200 concurrent orders against a balance for 100: exactly 100 succeed, none overdraws', async () => {
      const org = await t.createOrg({ balance: 100 * PRICE });
      const responses = await Promise.all(
        Array.from({ length: 200 }, () =>
          t.request(org.apiKey, { method: 'POST', url: '/v2.1/orders', payload: ORDER }),
        ),
      );
      assertExactlyHundred(
        responses.map((r) => ({ status: r.statusCode, message: r.json().message })),
      );
      assert.equal(await balanceOf(t, org), 0);
      const list = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/orders?perPage=500' });
      assert.equal(list.json().length, 100);
      const inventory = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/inventory' });
      const batches = inventory.json().bundles[0].available as { remaining: number }[];
      assert.equal(
        batches.reduce((n, b) => n + b.remaining, 0),
        100,
      );
      const verify = await runCli(['ledger', 'verify'], f.env);
      assert.equal(verify.code, 0, verify.err);
      assert.match(verify.out, /the ledger balances/);
    });

    it('the same Idempotency-Key sent 20 times at once creates one order and one debit', async () => {
      const org = await t.createOrg({ balance: 10 * PRICE });
      const headers = { 'idempotency-key': `key-${kind}-20` };
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          t.request(org.apiKey, { method: 'POST', url: '/v2.1/orders', payload: ORDER, headers }),
        ),
      );
      const ok = responses.filter((r) => r.statusCode === 200);
      const busy = responses.filter((r) => r.statusCode === 409);
      assert.equal(ok.length + busy.length, 20, responses.map((r) => r.body).join('\n'));
      assert.ok(ok.length >= 1);
      assert.equal(new Set(ok.map((r) => r.json().orderReference)).size, 1);
      for (const r of busy) assert.equal(r.json().code, 'idempotency_in_progress');
      assert.equal(await balanceOf(t, org), 9 * PRICE);

      const again = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: ORDER,
        headers,
      });
      assert.equal(again.statusCode, 200);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.json(), ok[0]?.json());
      const orders = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/orders' });
      assert.equal(orders.json().length, 1);
      assert.equal(await balanceOf(t, org), 9 * PRICE);
      assert.deepEqual(await journalKinds(t, org), ['opening', 'order']);
    });

    it('a key reused with another request is a 409; a refused order is replayed as refused', async () => {
      const org = await t.createOrg({ balance: PRICE });
      const headers = { 'idempotency-key': 'reused' };
      const first = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: ORDER,
        headers,
      });
      assert.equal(first.statusCode, 200);
      const other = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: { ...ORDER, order: [{ type: 'bundle', item: UNIT, quantity: 2 }] },
        headers,
      });
      assert.equal(other.statusCode, 409);
      assert.equal(other.json().code, 'idempotency_key_reused');

      // Keys belong to an organisation: another one may use the same key freely.
      const stranger = await t.createOrg({ balance: PRICE });
      const theirs = await t.request(stranger.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: ORDER,
        headers,
      });
      assert.equal(theirs.statusCode, 200);
      assert.equal(theirs.headers['idempotent-replayed'], undefined);

      const poorHeaders = { 'idempotency-key': 'refused' };
      const refused = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: ORDER,
        headers: poorHeaders,
      });
      assert.equal(refused.statusCode, 400);
      const replayed = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: ORDER,
        headers: poorHeaders,
      });
      assert.equal(replayed.statusCode, 400);
      assert.equal(replayed.headers['idempotent-replayed'], 'true');
      assert.equal(replayed.json().message, refused.json().message);

      const bad = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: ORDER,
        headers: { 'idempotency-key': 'x'.repeat(256) },
      });
      assert.equal(bad.statusCode, 400);
      assert.match(bad.json().message, /idempotency-key/i);
    });

    it('a request its schema refuses stores nothing: the key stays free for the corrected one', async () => {
      const org = await t.createOrg({ balance: PRICE });
      const headers = { 'idempotency-key': 'malformed' };
      const send = (quantity: unknown) =>
        t.request(org.apiKey, {
          method: 'POST',
          url: '/v2.1/orders',
          payload: { ...ORDER, order: [{ type: 'bundle', item: UNIT, quantity }] },
          headers,
        });
      for (let i = 0; i < 2; i += 1) {
        const malformed = await send('1');
        assert.equal(malformed.statusCode, 400);
        assert.equal(malformed.json().code, 'validation_failed');
        assert.equal(malformed.headers['idempotent-replayed'], undefined, 'not a replay');
      }
      const corrected = await send(1);
      assert.equal(corrected.statusCode, 200, corrected.body);
      assert.equal(corrected.headers['idempotent-replayed'], undefined);
      assert.equal(await balanceOf(t, org), 0);
    });

    it('an expired key (after 24 h) may be used again', async () => {
      const org = await t.createOrg({ balance: 2 * PRICE });
      const headers = { 'idempotency-key': 'daily' };
      const send = () =>
        t.request(org.apiKey, { method: 'POST', url: '/v2.1/orders', payload: ORDER, headers });
      const first = await send();
      t.clock.advance(24 * 3600 + 1);
      const second = await send();
      assert.equal(first.statusCode, 200);
      assert.equal(second.statusCode, 200);
      assert.equal(second.headers['idempotent-replayed'], undefined);
      assert.notEqual(first.json().orderReference, second.json().orderReference);
      assert.equal(await balanceOf(t, org), 0);
    });
  });
}

if (DATABASES.includes('postgres')) {
  describe('orders from two server processes sharing one PostgreSQL database', () => {
    let f: FileBackedApp;
    let servers: ServerProcess[] = [];

    before(async () => {
      f = await startFileBackedApp('postgres');
      await addBundles(f.t, [fixtureBundle(UNIT, PRICE)]);
      servers = await startServerProcesses(f.env, 2);
    });
    after(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await f.close();
    });

    it('200 orders split across both: exactly 100 succeed and the ledger verifies', async () => {
      const org = await f.t.createOrg({ balance: 100 * PRICE });
      const results = await Promise.all(
        Array.from({ length: 200 }, async (_, i) => {
          const server = servers[i % 2];
          assert.ok(server !== undefined);
          const res = await fetch(`${server.url}/v2.1/orders`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': org.apiKey },
            body: JSON.stringify(ORDER),
          });
          const body = (await res.json()) as { message?: string };
          return { status: res.status, message: body.message };
        }),
      );
      assertExactlyHundred(results);
      assert.equal(await balanceOf(f.t, org), 0);
      const verify = await runCli(['ledger', 'verify'], f.env);
      assert.equal(verify.code, 0, verify.err);
    });
  });
}
