import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import { ManualWallClock } from '../../../../test/manual-wall-clock.js';
import { iso } from '../../../clock.js';
import { completeClaim, insertClaim } from '../../../store/repositories/idempotency-repository.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';
import type { FileBackedApp, ServerProcess } from '../../../../test/fixtures/orders.js';
import {
  addBundles,
  fixtureBundle,
  runCli,
  startFileBackedApp,
  startServerProcesses,
} from '../../../../test/fixtures/orders.js';

// Orders with an Idempotency-Key committed together by the group writer: the key's record is
// written in the batch's transaction, and duplicates in one batch, a refused order among others,
// and duplicates arriving at two instances at once must behave as one transaction after another.

const UNIT = 'test_idempotent_unit';
const PRICE = 100;
const ORDER = {
  type: 'transaction',
  assign: false,
  order: [{ type: 'bundle', item: UNIT, quantity: 1 }],
};

async function balanceOf(t: TestApp, org: TestOrg): Promise<number> {
  const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' });
  return res.json().organisations[0].balance;
}

async function orderCount(t: TestApp, org: TestOrg): Promise<number> {
  const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/orders' });
  return res.json().length;
}

// The same answers without group commit (GROUP_COMMIT=false): each order in its own transaction.
const SETTINGS = DATABASES.flatMap((kind) => [
  { kind, groupCommit: true, name: `committed in groups [${kind}]` },
  { kind, groupCommit: false, name: `each in its own transaction [${kind}]` },
]);

for (const { kind, groupCommit, name } of SETTINGS) {
  describe(`orders with Idempotency-Key, ${name}`, () => {
    let f: FileBackedApp;
    let t: TestApp;

    /** Asserts that the writes since `since` shared transactions (with group commit on). */
    const batched = (since: { batches: number; writes: number }) => {
      const now = t.deps.store.writer.stats();
      if (groupCommit) assert.ok(now.batches - since.batches < now.writes - since.writes);
    };

    before(async () => {
      f = await startFileBackedApp(kind, { groupCommit });
      t = f.t;
      await addBundles(t, [fixtureBundle(UNIT, PRICE)]);
    });
    after(() => f.close());

    const order = (org: TestOrg, key: string, payload: object = ORDER) =>
      t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload,
        headers: { 'idempotency-key': key },
      });

    it('the same key 16 times at once (one batch): one order, one debit, the same answer to all', async () => {
      const org = await t.createOrg({ balance: 10 * PRICE });
      const before = t.deps.store.writer.stats();
      const responses = await Promise.all(Array.from({ length: 16 }, () => order(org, 'dup')));
      batched(before);

      for (const r of responses) assert.equal(r.statusCode, 200, r.body);
      const fresh = responses.filter((r) => r.headers['idempotent-replayed'] === undefined);
      assert.equal(fresh.length, 1);
      const first = fresh[0]?.json();
      for (const r of responses) assert.deepEqual(r.json(), first);
      assert.equal(await orderCount(t, org), 1);
      assert.equal(await balanceOf(t, org), 9 * PRICE);

      const again = await order(org, 'dup');
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.json(), first);
      // The replay's bytes are the first answer's, not only the same JSON.
      assert.equal(again.body, fresh[0]?.body);
      // A replay sends the bytes stored, the same for every repeat.
      const replays = responses.filter((r) => r.headers['idempotent-replayed'] === 'true');
      for (const r of replays) assert.equal(r.body, again.body);
    });

    it('a refused order among others at once (one batch): its 400 is stored and replayed, the others commit', async () => {
      const poor = await t.createOrg({ balance: PRICE - 1 });
      const rich = await Promise.all(
        Array.from({ length: 6 }, () => t.createOrg({ balance: 2 * PRICE })),
      );
      const before = t.deps.store.writer.stats();
      const [refused, refusedTwice, ...placed] = await Promise.all([
        order(poor, 'poor'),
        order(poor, 'poor'),
        ...rich.map((org, i) => order(org, `rich-${i}`)),
      ]);
      batched(before);

      assert.equal(refused?.statusCode, 400, refused?.body);
      assert.match(refused?.json().message, /^insufficient balance: /);
      // The duplicate in the same batch did not run the order again: it got the stored refusal.
      assert.equal(refusedTwice?.statusCode, 400, refusedTwice?.body);
      assert.equal(refusedTwice?.json().message, refused?.json().message);
      assert.equal(
        [refused, refusedTwice].filter((r) => r?.headers['idempotent-replayed'] === 'true').length,
        1,
      );
      for (const r of placed) {
        assert.equal(r.statusCode, 200, r.body);
        assert.equal(r.headers['idempotent-replayed'], undefined);
      }
      for (const org of rich) {
        assert.equal(await balanceOf(t, org), PRICE);
        assert.equal(await orderCount(t, org), 1);
      }
      assert.equal(await balanceOf(t, poor), PRICE - 1);

      const replayed = await order(poor, 'poor');
      assert.equal(replayed.statusCode, 400);
      assert.equal(replayed.headers['idempotent-replayed'], 'true');
      assert.equal(replayed.json().message, refused?.json().message);
      assert.equal(replayed.json().code, refused?.json().code);
      const replayedAgain = await order(rich[0] as TestOrg, 'rich-0');
      assert.equal(replayedAgain.headers['idempotent-replayed'], 'true');
      assert.deepEqual(replayedAgain.json(), placed[0]?.json());

      const verify = await runCli(['ledger', 'verify'], f.env);
      assert.equal(verify.code, 0, verify.err);
    });

    it('the same request spelt differently (key order, spacing) is a replay; another value is a 409', async () => {
      const org = await t.createOrg({ balance: 10 * PRICE });
      const first = await order(org, 'spelt');
      assert.equal(first.statusCode, 200, first.body);
      const respelt = `{ "order" : [ { "quantity": 1, "item": "${UNIT}", "type": "bundle" } ],
        "assign": false, "type": "transaction" }`;
      const again = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: respelt,
        headers: { 'idempotency-key': 'spelt', 'content-type': 'application/json' },
      });
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body, first.body);
      const other = await order(org, 'spelt', {
        ...ORDER,
        order: [{ type: 'bundle', item: UNIT, quantity: 2 }],
      });
      assert.equal(other.statusCode, 409, other.body);
      assert.equal(await orderCount(t, org), 1);
      assert.equal(await balanceOf(t, org), 9 * PRICE);
    });

    it('a key reused with another request at once (one batch): one commits, the other is a 409', async () => {
      const org = await t.createOrg({ balance: 10 * PRICE });
      const twoUnits = { ...ORDER, order: [{ type: 'bundle', item: UNIT, quantity: 2 }] };
      const responses = await Promise.all([order(org, 'mixed'), order(org, 'mixed', twoUnits)]);
      // Whichever the writer ran first commits; the other finds its record.
      const ok = responses.filter((r) => r.statusCode === 200);
      const reused = responses.filter((r) => r.statusCode === 409);
      assert.equal(ok.length, 1, responses.map((r) => r.body).join('\n'));
      assert.equal(reused.length, 1);
      assert.equal(reused[0]?.json().code, 'idempotency_key_reused');
      const units = ok[0]?.json().total / PRICE;
      assert.equal(await orderCount(t, org), 1);
      assert.equal(await balanceOf(t, org), (10 - units) * PRICE);
    });
  });
}

for (const kind of DATABASES) {
  describe(`an order key still claimed by a request that died [${kind}]`, () => {
    const wall = new ManualWallClock();
    let t: TestApp;

    before(async () => {
      t = await startTestApp(kind, {}, { wallClock: wall });
      await addBundles(t, [fixtureBundle(UNIT, PRICE)]);
    });
    after(() => t.close());

    it('is a 409 while its lease runs, then taken over once: one order, the dead claim cannot complete', async () => {
      const org = await t.createOrg({ balance: 10 * PRICE });
      const send = (key: string, who: TestOrg = org) =>
        t.request(who.apiKey, {
          method: 'POST',
          url: '/v2.1/orders',
          payload: ORDER,
          headers: { 'idempotency-key': key },
        });
      // The hash this request has: keys belong to organisations, request hashes do not.
      const probe = await t.createOrg({ balance: PRICE });
      assert.equal((await send('probe', probe)).statusCode, 200);
      const { request_hash: requestHash } = await t.deps.store.db
        .selectFrom('idempotency_keys')
        .select('request_hash')
        .where('organisation_id', '=', probe.id)
        .executeTakeFirstOrThrow();

      const now = t.clock.now();
      const claimed = await insertClaim(t.deps.store.db, {
        organisationId: org.id,
        key: 'held',
        requestHash,
        owner: 'a-request-that-died',
        at: iso(now),
        expiresAt: iso(new Date(now.getTime() + 86_400_000)),
        leaseNow: iso(wall.now()),
        lockedUntil: iso(new Date(wall.now().getTime() + 120_000)),
      });
      assert.ok(claimed);

      const running = await send('held');
      assert.equal(running.statusCode, 409, running.body);
      assert.equal(running.json().code, 'idempotency_in_progress');
      assert.equal(await orderCount(t, org), 0);

      wall.advance(120_001);
      const [taken, repeat] = await Promise.all([send('held'), send('held')]);
      assert.equal(taken?.statusCode, 200, taken?.body);
      assert.equal(repeat?.statusCode, 200, repeat?.body);
      assert.deepEqual(repeat?.json(), taken?.json());
      assert.equal(await orderCount(t, org), 1);
      assert.equal(await balanceOf(t, org), 9 * PRICE);
      const late = await completeClaim(
        t.deps.store.db,
        org.id,
        'held',
        'a-request-that-died',
        200,
        '{}',
      );
      assert.equal(late, false);
      const replayed = await send('held');
      assert.equal(replayed.headers['idempotent-replayed'], 'true');
      assert.deepEqual(replayed.json(), taken?.json());
    });
  });
}

if (DATABASES.includes('postgres')) {
  describe('the same Idempotency-Key at two server processes sharing one PostgreSQL database', () => {
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

    it(
      'each key sent 6 times to each at once: one order per key, every answer its own',
      {
        timeout: 60_000,
      },
      async () => {
        const org = await f.t.createOrg({ balance: 100 * PRICE });
        const keys = Array.from({ length: 8 }, (_, i) => `shared-${i}`);
        const results = await Promise.all(
          keys.flatMap((key) =>
            Array.from({ length: 12 }, async (_, i) => {
              const server = servers[i % 2];
              assert.ok(server !== undefined);
              const res = await fetch(`${server.url}/v2.1/orders`, {
                method: 'POST',
                headers: {
                  'content-type': 'application/json',
                  'x-api-key': org.apiKey,
                  'idempotency-key': key,
                },
                body: JSON.stringify(ORDER),
              });
              const body = (await res.json()) as { orderReference?: string; code?: string };
              return { key, status: res.status, body };
            }),
          ),
        );
        for (const key of keys) {
          const mine = results.filter((r) => r.key === key);
          const ok = mine.filter((r) => r.status === 200);
          const busy = mine.filter((r) => r.status === 409);
          assert.equal(ok.length + busy.length, mine.length, JSON.stringify(mine));
          // A duplicate that found the other's record still uncommitted may be told to retry.
          for (const r of busy) assert.equal(r.body.code, 'idempotency_in_progress');
          assert.ok(ok.length >= 1, JSON.stringify(mine));
          assert.equal(new Set(ok.map((r) => r.body.orderReference)).size, 1);
        }
        assert.equal(await orderCount(f.t, org), keys.length);
        assert.equal(await balanceOf(f.t, org), (100 - keys.length) * PRICE);
        const verify = await runCli(['ledger', 'verify'], f.env);
        assert.equal(verify.code, 0, verify.err);
      },
    );
  });
}
