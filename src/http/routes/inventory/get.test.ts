import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';
import { addBundles, fixtureBundle } from '../../../../test/fixtures/orders.js';
import { assertIndexedRead, planOf, statementsOf } from '../../../../test/query-plan.js';
import {
  drawFromInventory,
  insertBatch,
  listAvailableBatchesAfter,
} from '../../../store/repositories/inventory-repository.js';

const ALPHA = 'test_inventory_alpha';
const BETA = 'test_inventory_beta';

interface Batch {
  id: number;
  total: number;
  remaining: number;
  expiry: string;
}

for (const kind of DATABASES) {
  describe(`GET /v2.1/inventory [${kind}]`, () => {
    let t: TestApp;

    before(async () => {
      t = await startTestApp(kind, { inventoryValidityDays: 30 });
      await addBundles(t, [
        fixtureBundle(ALPHA, 100, { unlimited: true, dataAmount: -1, duration: 15 }),
        fixtureBundle(BETA, 200),
      ]);
    });
    after(() => t.close());

    const buy = async (org: TestOrg, item: string, quantity: number) => {
      const res = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: { order: [{ type: 'bundle', item, quantity }] },
      });
      assert.equal(res.statusCode, 200, res.body);
    };
    const inventory = async (org: TestOrg) => {
      const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/inventory' });
      assert.equal(res.statusCode, 200);
      return res.json().bundles as {
        name: string;
        available: Batch[];
        data: number;
        unlimited: boolean;
      }[];
    };
    const batchesOf = async (org: TestOrg, name: string) =>
      (await inventory(org)).find((b) => b.name === name)?.available ?? [];
    const apply = (org: TestOrg, name: string) =>
      t.request(org.apiKey, { method: 'POST', url: '/v2.1/esims/apply', payload: { name } });

    it('groups purchases by bundle with one entry per batch, oldest first', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      await buy(org, ALPHA, 2);
      t.clock.advance(60);
      await buy(org, ALPHA, 3);
      await buy(org, BETA, 1);
      const bundles = await inventory(org);
      assert.deepEqual(
        bundles.map((b) => b.name),
        [ALPHA, BETA],
      );
      const alpha = bundles[0];
      assert.ok(alpha !== undefined);
      assert.equal(alpha.unlimited, true);
      assert.equal(alpha.data, -1);
      assert.deepEqual(
        alpha.available.map((b) => [b.total, b.remaining]),
        [
          [2, 2],
          [3, 3],
        ],
      );
      assert.ok((alpha.available[0]?.id ?? 0) < (alpha.available[1]?.id ?? 0));
    });

    it('applying draws from the oldest unexpired batch first and skips lapsed ones', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      await buy(org, BETA, 1); // will lapse
      t.clock.advance(20 * 86_400);
      await buy(org, BETA, 2);
      t.clock.advance(60);
      await buy(org, BETA, 2);
      t.clock.advance(11 * 86_400); // the first batch is now past its 30 days
      const visible = await batchesOf(org, BETA);
      assert.deepEqual(
        visible.map((b) => b.remaining),
        [2, 2],
      );
      const [older, newer] = visible;
      assert.ok(older !== undefined && newer !== undefined);

      assert.equal((await apply(org, BETA)).statusCode, 200);
      assert.deepEqual(
        (await batchesOf(org, BETA)).map((b) => [b.id, b.remaining]),
        [
          [older.id, 1],
          [newer.id, 2],
        ],
      );
      assert.equal((await apply(org, BETA)).statusCode, 200);
      // A used-up batch leaves the list.
      assert.deepEqual(
        (await batchesOf(org, BETA)).map((b) => [b.id, b.remaining]),
        [[newer.id, 2]],
      );
    });

    it('concurrent applies never take more units than were bought', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      await buy(org, ALPHA, 4);
      await buy(org, ALPHA, 6);
      const results = await Promise.all(Array.from({ length: 16 }, () => apply(org, ALPHA)));
      const ok = results.filter((r) => r.statusCode === 200).length;
      assert.equal(ok, 10, results.map((r) => r.statusCode).join(','));
      for (const r of results.filter((x) => x.statusCode !== 200)) {
        assert.equal(r.statusCode, 400, r.body);
      }
      assert.deepEqual(await batchesOf(org, ALPHA), []);
    });

    it('shows nothing of another organisation', async () => {
      const owner = await t.createOrg({ balance: 10_000 });
      const other = await t.createOrg({ balance: 10_000 });
      await buy(owner, BETA, 1);
      assert.deepEqual(await inventory(other), []);
      const res = await apply(other, BETA);
      assert.equal(res.statusCode, 400);
      assert.equal((await batchesOf(owner, BETA))[0]?.remaining, 1);
    });
  });
}

// Growth: the answer reads only the batches with units left, in index order, a chunk at a time.
for (const kind of DATABASES) {
  describe(`GET /v2.1/inventory at size [${kind}]`, () => {
    let t: TestApp;

    before(async () => {
      t = await startTestApp(kind, { inventoryValidityDays: 30 });
      await addBundles(t, [fixtureBundle(ALPHA, 100), fixtureBundle(BETA, 200)]);
    });
    after(() => t.close());

    it('lists every batch with units left once, in order, across many chunks; used-up ones never', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const at = new Date(t.clock.now().getTime()).toISOString();
      const expiry = new Date(t.clock.now().getTime() + 86_400_000).toISOString();
      const left: { name: string; id: number }[] = [];
      await t.deps.store.db.transaction().execute(async (trx) => {
        for (let i = 0; i < 1300; i += 1) {
          const name = i % 3 === 0 ? BETA : ALPHA;
          const remaining = i % 2 === 0 ? 0 : 1 + (i % 4);
          const id = await insertBatch(trx, {
            organisationId: org.id,
            bundleName: name,
            orderReference: `ref-${i}`,
            total: 5,
            remaining,
            expiry,
            at,
          });
          if (remaining > 0) left.push({ name, id });
        }
      });
      const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/inventory' });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      const bundles = res.json<{ bundles: { name: string; available: Batch[] }[] }>().bundles;
      const seen = bundles.flatMap((b) => b.available.map((a) => ({ name: b.name, id: a.id })));
      const expected = [
        ...left.filter((b) => b.name === ALPHA),
        ...left.filter((b) => b.name === BETA),
      ];
      assert.deepEqual(seen, expected);
      assert.ok(bundles.every((b) => b.available.every((a) => a.remaining > 0)));
    });

    it('writes the bytes the response schema describes: fields in order, no spaces', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const empty = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/inventory' });
      assert.equal(empty.body, '{"bundles":[]}');
      const res = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: { order: [{ type: 'bundle', item: BETA, quantity: 2 }] },
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = (await t.request(org.apiKey, { method: 'GET', url: '/v2.1/inventory' })).body;
      const batch = (JSON.parse(body) as { bundles: { available: Batch[] }[] }).bundles[0]
        ?.available[0];
      assert.ok(batch !== undefined);
      const bundle = (
        await t.request(org.apiKey, { method: 'GET', url: `/v2.1/catalogue/bundle/${BETA}` })
      ).json<{
        description: string;
        countries: { iso: string }[];
        dataAmount: number;
        duration: number;
        autostart: boolean;
        unlimited: boolean;
        speed: string[];
      }>();
      const expected = {
        bundles: [
          {
            name: BETA,
            desc: bundle.description,
            available: [{ id: batch.id, total: 2, remaining: 2, expiry: batch.expiry }],
            countries: bundle.countries.map((c) => c.iso),
            data: bundle.dataAmount,
            duration: bundle.duration,
            durationUnit: 'day',
            autostart: bundle.autostart,
            unlimited: bundle.unlimited,
            speed: bundle.speed,
          },
        ],
      };
      assert.equal(body, JSON.stringify(expected));
    });

    it('reads and draws through the index of batches with units left, sorting nothing', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const at = t.clock.now().toISOString();
      const db = t.deps.store.db;
      const reads = await statementsOf(db, (d) =>
        listAvailableBatchesAfter(d, org.id, at, { bundleName: ALPHA, createdAt: at, id: 1 }, 10),
      );
      const draws = await statementsOf(db, (d) => drawFromInventory(d, org.id, ALPHA, at));
      for (const statement of [...reads, draws[0]]) {
        assert.ok(statement !== undefined);
        assertIndexedRead(await planOf(db, kind, statement), 'inventory_batches_left');
      }
    });
  });
}
