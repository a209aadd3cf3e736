import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FR_1MB, buy, getJson, seedTestBundles } from '../../../test/esim-fixtures.js';
import { DATABASES, startTestApp } from '../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../test/harness.js';
import { ManualWallClock } from '../../../test/manual-wall-clock.js';
import { iso, addSeconds } from '../../clock.js';
import { claimDeferred } from '../../store/repositories/deferred-repository.js';
import { findDeferredByReference } from '../../store/repositories/deferred-repository.js';
import { DomainError } from '../errors/error-codes.js';
import { validateOrder } from '../orders/placement.js';
import type { OrderRequest } from '../orders/validation.js';
import { DEFERRED_LEASE_SECONDS, runDeferredRequests } from './process.js';
import { isStillProcessing, submitDeferred } from './submit.js';
import type { DeferredState } from './submit.js';

// Orders accepted for the background: the capability the later versions switch on for more than
// five bundles (their HTTP behaviour is tested beside their routes). Fixtures and the worker's
// turns are called directly; balances and orders are read back through HTTP.

const SIX: OrderRequest = {
  type: 'transaction',
  assign: true,
  order: [{ type: 'bundle', item: FR_1MB.name, quantity: 6 }],
};

async function refusal(work: () => Promise<unknown>): Promise<DomainError> {
  try {
    await work();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  assert.fail('expected a refusal');
}

for (const kind of DATABASES) {
  describe(`orders processed in the background [${kind}]`, () => {
    let t: TestApp;
    const wall = new ManualWallClock();

    before(async () => {
      t = await startTestApp(kind, {}, { wallClock: wall });
      await seedTestBundles(t);
    });
    after(() => t.close());

    const balanceOf = async (org: TestOrg): Promise<number> => {
      const body = (await getJson(t, org, '/v2.1/organisation')) as {
        organisations: { balance: number }[];
      };
      return body.organisations[0]?.balance ?? NaN;
    };

    const submit = (
      org: TestOrg,
      options: { key?: string; hash?: string; request?: OrderRequest } = {},
    ) => {
      const request = options.request ?? SIX;
      const ordering = { id: org.id, currency: 'USD', groups: ['Standard eSIM Bundles'] };
      return submitDeferred(t.deps, {
        organisationId: org.id,
        kind: 'order',
        idempotencyKey: options.key,
        requestHash: options.hash ?? 'hash-of-six',
        input: { org: ordering, request },
        check: async () => {
          await validateOrder(t.deps, ordering, request);
        },
      });
    };

    const turn = (owner = 'worker-a') => runDeferredRequests(t.deps, owner);

    it('accepts, answers 503 while processing, then the same order once done, charged once', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const first = await submit(org, { key: 'k-1' });
      assert.equal(first.state, 'processing');
      assert.ok(first.state === 'processing' && first.accepted);
      const again = await submit(org, { key: 'k-1' });
      assert.deepEqual(again, { state: 'processing', reference: first.reference, accepted: false });
      assert.equal(await isStillProcessing(t.deps, org.id, first.reference), true);
      assert.equal(await balanceOf(org), 10_000);
      const res = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/orders/${first.reference}`,
      });
      assert.equal(res.statusCode, 404);

      assert.deepEqual(await turn(), { done: 1, failed: 0, postponed: 0, purged: 0 });
      for (let i = 0; i < 2; i += 1) {
        assert.deepEqual(await submit(org, { key: 'k-1' }), {
          state: 'done',
          reference: first.reference,
        });
      }
      assert.equal(await isStillProcessing(t.deps, org.id, first.reference), false);
      const order = (await getJson(t, org, `/v2.1/orders/${first.reference}`)) as {
        total: number;
        order: { iccids: string[] }[];
      };
      assert.equal(order.total, 600);
      assert.equal(order.order[0]?.iccids.length, 6);
      assert.equal(await balanceOf(org), 10_000 - 600);
      assert.deepEqual(await turn(), { done: 0, failed: 0, postponed: 0, purged: 0 });
    });

    it('refuses the same key with another request, and bad input before queueing anything', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      await submit(org, { key: 'k-2' });
      const reused = await refusal(() => submit(org, { key: 'k-2', hash: 'other' }));
      assert.equal(reused.code, 'idempotency_key_reused');
      const bad: OrderRequest = { ...SIX, order: [{ type: 'bundle', item: 'nope', quantity: 6 }] };
      const refused = await refusal(() => submit(org, { key: 'k-3', hash: 'bad', request: bad }));
      assert.equal(refused.code, 'unknown_bundle');
      const poor = await t.createOrg({ balance: 100 });
      assert.equal((await refusal(() => submit(poor))).code, 'insufficient_balance');
      await turn();
    });

    it('matches a retry without a key by its body until its outcome has been answered once', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const first = await submit(org);
      assert.equal((await submit(org)).reference, first.reference);
      await turn();
      assert.deepEqual(await submit(org), { state: 'done', reference: first.reference });
      // Answered: the same body again is a new order.
      const next = await submit(org);
      assert.ok(next.state === 'processing' && next.accepted);
      assert.notEqual(next.reference, first.reference);
      await turn();
      assert.equal(await balanceOf(org), 10_000 - 1_200);
    });

    it('stores a refusal met while processing and answers it to the retry', async () => {
      const org = await t.createOrg({ balance: 1_000 });
      const first = await submit(org, { key: 'k-4' });
      await buy(t, org, FR_1MB.name, { quantity: 5 }); // spends what the order needed meanwhile
      assert.deepEqual(await turn(), { done: 0, failed: 1, postponed: 0, purged: 0 });
      const error = await refusal(() => submit(org, { key: 'k-4' }));
      assert.equal(error.code, 'insufficient_balance');
      assert.equal(await balanceOf(org), 500);
      const row = await findDeferredByReference(t.deps.store.db, org.id, first.reference);
      assert.equal(row?.status, 'failed');
    });

    it('concurrent retries accept one order, concurrent workers place it once', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const states: DeferredState[] = await Promise.all(
        Array.from({ length: 8 }, () => submit(org, { key: 'k-5' })),
      );
      const references = new Set(states.map((s) => s.reference));
      assert.equal(references.size, 1);
      assert.equal(states.filter((s) => s.state === 'processing' && s.accepted).length, 1);
      const turns = await Promise.all(['w1', 'w2', 'w3'].map((owner) => turn(owner)));
      assert.equal(
        turns.reduce((n, r) => n + r.done, 0),
        1,
      );
      assert.equal(await balanceOf(org), 10_000 - 600);
      const [reference] = references;
      assert.deepEqual(await submit(org, { key: 'k-5' }), { state: 'done', reference });
    });

    it('a worker that died mid-way leaves the order queued; another finishes it once the lease lapses', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const first = await submit(org, { key: 'k-6' });
      const row = await findDeferredByReference(t.deps.store.db, org.id, first.reference);
      assert.ok(row !== undefined);
      // The dead worker's claim: taken, never finished (its transaction never committed).
      const now = wall.now();
      assert.ok(
        await claimDeferred(t.deps.store.db, {
          id: row.id,
          owner: 'dead-worker',
          leaseNow: iso(now),
          lockedUntil: iso(addSeconds(now, DEFERRED_LEASE_SECONDS)),
          at: iso(t.clock.now()),
        }),
      );
      assert.deepEqual(await turn('restarted'), { done: 0, failed: 0, postponed: 0, purged: 0 });
      assert.equal((await submit(org, { key: 'k-6' })).state, 'processing');
      wall.advance(DEFERRED_LEASE_SECONDS * 1000 + 1);
      assert.deepEqual(await turn('restarted'), { done: 1, failed: 0, postponed: 0, purged: 0 });
      assert.equal(await balanceOf(org), 10_000 - 600);
      assert.deepEqual(await submit(org, { key: 'k-6' }), {
        state: 'done',
        reference: first.reference,
      });
    });
  });
}
