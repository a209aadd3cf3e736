import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addDays } from '../../../clock.js';
import { expireTestCredit, grantTestCredit } from '../../../domain/money/ledger.js';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';
import type { FileBackedApp } from '../../../../test/fixtures/orders.js';
import {
  addBundles,
  fixtureBundle,
  runCli,
  startFileBackedApp,
} from '../../../../test/fixtures/orders.js';

const BUNDLE = 'test_refund_bundle';
const PRICE = 400;

interface Batch {
  id: number;
  total: number;
  remaining: number;
}

for (const kind of DATABASES) {
  describe(`POST /v2.1/inventory/refund [${kind}]`, () => {
    let f: FileBackedApp;
    let t: TestApp;

    before(async () => {
      f = await startFileBackedApp(kind, { inventoryValidityDays: 90, inventoryRefundDays: 60 });
      t = f.t;
      await addBundles(t, [fixtureBundle(BUNDLE, PRICE)]);
    });
    after(() => f.close());

    const order = async (org: TestOrg, quantity: number, assign = false) => {
      const res = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: { assign, order: [{ type: 'bundle', item: BUNDLE, quantity }] },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as { orderReference: string; order: { iccids?: string[] }[] };
    };
    const batches = async (org: TestOrg): Promise<Batch[]> => {
      const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/inventory' });
      assert.equal(res.statusCode, 200);
      const bundles = res.json().bundles as { name: string; available: Batch[] }[];
      return bundles.find((b) => b.name === BUNDLE)?.available ?? [];
    };
    const refund = (org: TestOrg, payload: unknown, headers: Record<string, string> = {}) =>
      t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/inventory/refund',
        payload: payload as Record<string, unknown>,
        headers,
      });
    const funds = async (org: TestOrg) => {
      const o = (await t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' })).json()
        .organisations[0] as { balance: number; testCredit: number };
      return { balance: o.balance, testCredit: o.testCredit };
    };
    const ledgerHolds = async () => {
      const verify = await runCli(['ledger', 'verify', '--json'], f.env);
      assert.equal(verify.code, 0, verify.err + verify.out);
      assert.equal(JSON.parse(verify.out).ok, true);
    };

    it('refunds unapplied units to the balance and journals one movement', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const { orderReference } = await order(org, 5);
      const [batch] = await batches(org);
      assert.ok(batch !== undefined);
      assert.equal((await funds(org)).balance, 10_000 - 5 * PRICE);

      const res = await refund(org, { usageId: batch.id, quantity: 2 });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), {
        status: 'Successfully refunded bundles to balance',
        usageId: batch.id,
        name: BUNDLE,
        quantity: 2,
        remaining: 3,
        orderReference,
        amount: 2 * PRICE,
        refundedToBalance: 2 * PRICE,
        refundedToTestCredit: 0,
        balance: 10_000 - 3 * PRICE,
        testCredit: 0,
      });
      assert.deepEqual(
        (await batches(org)).map((b) => [b.id, b.total, b.remaining]),
        [[batch.id, 5, 3]],
      );
      assert.equal((await funds(org)).balance, 10_000 - 3 * PRICE);

      const journal = JSON.parse((await runCli(['ledger', 'show', org.id, '--json'], f.env)).out);
      assert.deepEqual(
        [journal[0].kind, journal[0].balanceDelta, journal[0].reference],
        ['refund', 2 * PRICE, orderReference],
      );
      await ledgerHolds();
    });

    it('refuses bad input, too many units, and another organisation’s batch, changing nothing', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const other = await t.createOrg({ balance: 10_000 });
      await order(org, 2);
      const [batch] = await batches(org);
      assert.ok(batch !== undefined);
      const before = await funds(org);

      const tooMany = await refund(org, { usageId: batch.id, quantity: 3 });
      assert.equal(tooMany.statusCode, 400);
      assert.equal(tooMany.json().code, 'insufficient_inventory');
      assert.match(tooMany.json().message, /quantity: 3 exceeds the 2 unapplied units/);

      for (const [payload, field] of [
        [{ usageId: batch.id, quantity: 0 }, 'quantity'],
        [{ usageId: batch.id, quantity: 1.5 }, 'quantity'],
        [{ usageId: batch.id }, 'quantity'],
        [{ usageId: 'one', quantity: 1 }, 'usageId'],
      ] as const) {
        const res = await refund(org, payload);
        assert.equal(res.statusCode, 400, JSON.stringify(payload));
        assert.match(res.json().message, new RegExp(field));
      }

      const unknown = await refund(org, { usageId: 999_999_999, quantity: 1 });
      assert.equal(unknown.statusCode, 404);
      assert.match(unknown.json().message, /usageId 999999999 not found/);

      const foreign = await refund(other, { usageId: batch.id, quantity: 1 });
      assert.equal(foreign.statusCode, 404);
      assert.equal(foreign.json().message, `inventory usageId ${batch.id} not found`);

      const noKey = await t.request(undefined, {
        method: 'POST',
        url: '/v2.1/inventory/refund',
        payload: { usageId: batch.id, quantity: 1 },
      });
      assert.equal(noKey.statusCode, 403);

      assert.deepEqual(await funds(org), before);
      assert.equal((await batches(org))[0]?.remaining, 2);
    });

    it('closes the refund window 60 days after purchase', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      await order(org, 2);
      const [batch] = await batches(org);
      assert.ok(batch !== undefined);
      t.clock.advance(59 * 86_400);
      assert.equal((await refund(org, { usageId: batch.id, quantity: 1 })).statusCode, 200);
      t.clock.advance(2 * 86_400);
      const late = await refund(org, { usageId: batch.id, quantity: 1 });
      assert.equal(late.statusCode, 400);
      assert.equal(late.json().code, 'refund_window_closed');
      assert.match(late.json().message, /60-day refund window closed at/);
    });

    it('gives back to test credit what the order took from test credit', async () => {
      const org = await t.createOrg({ balance: 1000, testCredit: 300 });
      await order(org, 2); // 300 from test credit, 500 from the balance
      assert.deepEqual(await funds(org), { balance: 500, testCredit: 0 });
      const [batch] = await batches(org);
      assert.ok(batch !== undefined);
      const first = (await refund(org, { usageId: batch.id, quantity: 1 })).json();
      assert.deepEqual([first.refundedToBalance, first.refundedToTestCredit], [400, 0]);
      const second = (await refund(org, { usageId: batch.id, quantity: 1 })).json();
      assert.deepEqual([second.refundedToBalance, second.refundedToTestCredit], [100, 300]);
      assert.deepEqual(await funds(org), { balance: 1000, testCredit: 300 });
      await ledgerHolds();
    });

    it('does not give back test credit that has expired since the order', async () => {
      const org = await t.createOrg({ balance: 1000 });
      await t.deps.store.db.transaction().execute((trx) =>
        grantTestCredit(trx, {
          organisationId: org.id,
          amount: PRICE,
          expiresAt: addDays(t.clock.now(), 1),
          description: 'trial credit',
          at: t.clock.now(),
        }),
      );
      await order(org, 1); // paid wholly from test credit
      t.clock.advance(2 * 86_400);
      await expireTestCredit(t.deps.store.db, t.clock.now());
      const [batch] = await batches(org);
      assert.ok(batch !== undefined);
      const res = await refund(org, { usageId: batch.id, quantity: 1 });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(
        [res.json().amount, res.json().refundedToBalance, res.json().refundedToTestCredit],
        [PRICE, 0, 0],
      );
      assert.deepEqual(await funds(org), { balance: 1000, testCredit: 0 });
      assert.deepEqual(await batches(org), []);
    });

    it('refunds a unit a revoke put back, at its order’s price and purchase date', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const placed = await order(org, 1, true);
      const iccid = placed.order[0]?.iccids?.[0] ?? '';
      const revoked = await t.request(org.apiKey, {
        method: 'DELETE',
        url: `/v2.1/esims/${iccid}/bundles/${BUNDLE}`,
      });
      assert.equal(revoked.statusCode, 200, revoked.body);
      const [batch] = await batches(org);
      assert.ok(batch !== undefined);
      const res = await refund(org, { usageId: batch.id, quantity: 1 });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().orderReference, placed.orderReference);
      assert.equal(res.json().refundedToBalance, PRICE);
      assert.equal((await funds(org)).balance, 10_000);
    });

    it('concurrent refunds never return more units than the batch holds', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      await order(org, 4);
      const [batch] = await batches(org);
      assert.ok(batch !== undefined);
      const results = await Promise.all(
        Array.from({ length: 10 }, () => refund(org, { usageId: batch.id, quantity: 1 })),
      );
      const codes = results.map((r) => r.statusCode);
      assert.equal(codes.filter((c) => c === 200).length, 4, codes.join(','));
      assert.ok(
        codes.every((c) => c === 200 || c === 400),
        codes.join(','),
      );
      assert.equal((await funds(org)).balance, 10_000);
      assert.deepEqual(await batches(org), []);
      await ledgerHolds();
    });

    it('replays a refund sent again with the same Idempotency-Key', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      await order(org, 3);
      const [batch] = await batches(org);
      assert.ok(batch !== undefined);
      const headers = { 'idempotency-key': `refund-${org.id}` };
      const first = await refund(org, { usageId: batch.id, quantity: 1 }, headers);
      const again = await refund(org, { usageId: batch.id, quantity: 1 }, headers);
      assert.equal(first.statusCode, 200);
      assert.equal(again.statusCode, 200);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.json(), first.json());
      assert.equal((await batches(org))[0]?.remaining, 2);
    });

    it('refunds once when the same Idempotency-Key arrives twice at once', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      await order(org, 3);
      const [batch] = await batches(org);
      assert.ok(batch !== undefined);
      const headers = { 'idempotency-key': `refund-race-${org.id}` };
      const both = await Promise.all(
        [1, 2].map(() => refund(org, { usageId: batch.id, quantity: 1 }, headers)),
      );
      const codes = both.map((r) => r.statusCode).sort();
      // The second either waits for nothing (409 in progress) or finds the stored answer.
      assert.ok(codes[0] === 200 && (codes[1] === 200 || codes[1] === 409), codes.join(','));
      assert.equal((await batches(org))[0]?.remaining, 2);
      const later = await refund(org, { usageId: batch.id, quantity: 1 }, headers);
      assert.equal(later.statusCode, 200);
      assert.equal(later.headers['idempotent-replayed'], 'true');
      assert.equal((await batches(org))[0]?.remaining, 2);
      await ledgerHolds();
    });

    it('replays a refused refund with its code, and a new key runs again', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      await order(org, 1);
      const [batch] = await batches(org);
      assert.ok(batch !== undefined);
      const headers = { 'idempotency-key': `refund-refused-${org.id}` };
      const first = await refund(org, { usageId: batch.id, quantity: 2 }, headers);
      const again = await refund(org, { usageId: batch.id, quantity: 2 }, headers);
      assert.equal(first.statusCode, 400);
      assert.equal(first.json().code, 'insufficient_inventory');
      assert.equal(first.headers['idempotent-replayed'], undefined);
      assert.equal(again.statusCode, 400);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.json(), first.json());
      const fresh = await refund(
        org,
        { usageId: batch.id, quantity: 1 },
        {
          'idempotency-key': `refund-fresh-${org.id}`,
        },
      );
      assert.equal(fresh.statusCode, 200);
      assert.deepEqual(await batches(org), []);
    });

    it('esim inventory list and refund do the same from the command line', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      await order(org, 3);
      const listed = await runCli(['inventory', 'list', org.id, '--json'], f.env);
      assert.equal(listed.code, 0, listed.err);
      const [batch] = JSON.parse(listed.out) as { id: number; remaining: number }[];
      assert.equal(batch?.remaining, 3);
      const done = await runCli(
        [
          'inventory',
          'refund',
          org.id,
          '--usage-id',
          String(batch?.id),
          '--quantity',
          '2',
          '--json',
        ],
        f.env,
      );
      assert.equal(done.code, 0, done.err);
      assert.equal(JSON.parse(done.out).toBalance, 2 * PRICE);
      assert.equal((await batches(org))[0]?.remaining, 1);
      const tooMany = await runCli(
        ['inventory', 'refund', org.id, '--usage-id', String(batch?.id), '--quantity', '2'],
        f.env,
      );
      assert.equal(tooMany.code, 1);
      assert.match(tooMany.err, /exceeds the 1 unapplied unit/);
      const usage = await runCli(['inventory', 'refund', org.id, '--quantity', '1'], f.env);
      assert.equal(usage.code, 2);
    });
  });

  describe(`POST /v2.1/inventory/refund turned off [${kind}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(kind, { inventoryRefundDays: 0, catalogueSeed: false });
      await addBundles(t, [fixtureBundle(BUNDLE, PRICE)]);
    });
    after(() => t.close());

    it('answers 400 refunds_disabled and keeps the units', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const bought = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: { order: [{ type: 'bundle', item: BUNDLE, quantity: 1 }] },
      });
      assert.equal(bought.statusCode, 200, bought.body);
      const inventory = (
        await t.request(org.apiKey, { method: 'GET', url: '/v2.1/inventory' })
      ).json().bundles[0].available[0] as Batch;
      const res = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/inventory/refund',
        payload: { usageId: inventory.id, quantity: 1 },
      });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'refunds_disabled');
    });
  });
}
