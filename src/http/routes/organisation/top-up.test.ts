import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES, eventually, startTestApp } from '../../../../test/harness.js';
import { ManualWallClock } from '../../../../test/manual-wall-clock.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';
import type { FileBackedApp } from '../../../../test/fixtures/orders.js';
import { runCli, startFileBackedApp } from '../../../../test/fixtures/orders.js';
import { iso } from '../../../clock.js';
import { reconcileTopUps, topUpOwner } from '../../../domain/money/top-up.js';
import { saveCard } from '../../../domain/money/save-card.js';
import { listAuditEntries } from '../../../store/repositories/audit-repository.js';
import { insertClaim } from '../../../store/repositories/idempotency-repository.js';
import { insertProcessorCharge } from '../../../store/repositories/payment-repository.js';
import { insertTopUp, settleTopUp } from '../../../store/repositories/top-up-repository.js';

const SUCCESS = '4242424242424242';
const DECLINE = '4000000000000002';
const NO_FUNDS = '4000000000009995';
const DOWN = '4000000000000119';

async function withCard(t: TestApp, org: TestOrg, number: string): Promise<void> {
  await saveCard(t.deps, org.id, { number, expMonth: 12, expYear: 2099 });
}

async function balanceOf(t: TestApp, org: TestOrg): Promise<number> {
  const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' });
  return res.json().organisations[0].balance;
}

async function journal(t: TestApp, org: TestOrg): Promise<{ kind: string; delta: number }[]> {
  const rows = await t.deps.store.db
    .selectFrom('ledger_entries')
    .select(['kind', 'balance_delta'])
    .where('organisation_id', '=', org.id)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ kind: r.kind, delta: Number(r.balance_delta) }));
}

const topUp = (t: TestApp, org: TestOrg, query: string, headers: Record<string, string> = {}) =>
  t.request(org.apiKey, { method: 'POST', url: `/v2.1/organisation/balance${query}`, headers });

/** The organisation's top-up audit rows, oldest first: who, what, and the details. */
async function topUpAudit(
  t: TestApp,
  org: TestOrg,
): Promise<{ actor: string; source: string; action: string; details: unknown }[]> {
  const rows = await listAuditEntries(t.deps.store.db, { organisationId: org.id, limit: 50 });
  return rows
    .filter((r) => r.action.startsWith('topup.'))
    .reverse()
    .map((r) => ({
      actor: r.actor,
      source: r.source,
      action: r.action,
      details: JSON.parse(r.details) as unknown,
    }));
}

/** Waits until the charge is at the processor and the request is waiting for its answer. */
const chargeUnderWay = (wall: ManualWallClock) =>
  eventually(
    async () => (wall.waiting === 2 ? true : undefined),
    10_000,
    'the charge and the payment timeout to be under way',
  );

for (const kind of DATABASES) {
  describe(`POST /v2.1/organisation/balance [${kind}]`, () => {
    let f: FileBackedApp;
    let t: TestApp;

    before(async () => {
      f = await startFileBackedApp(kind, { topUpMin: 500, topUpMax: 100_000 });
      t = f.t;
    });
    after(() => f.close());

    it('charges the saved card and credits the balance, journaled', async () => {
      const org = await t.createOrg({ balance: 1000 });
      await withCard(t, org, SUCCESS);
      const res = await topUp(t, org, '?amount=2500');
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.amount, 2500);
      assert.equal(body.balance, 3500);
      assert.ok(Number.isInteger(body.ref) && body.ref > 0);
      const second = await topUp(t, org, '?amount=500');
      assert.equal(second.json().balance, 4000);
      assert.notEqual(second.json().ref, body.ref);
      assert.equal(await balanceOf(t, org), 4000);
      assert.deepEqual(await journal(t, org), [
        { kind: 'opening', delta: 1000 },
        { kind: 'topup', delta: 2500 },
        { kind: 'topup', delta: 500 },
      ]);
      const verify = await runCli(['ledger', 'verify'], f.env);
      assert.equal(verify.code, 0, verify.err);
    });

    it('a declined card is a 400 with the reason and changes nothing', async () => {
      for (const [number, code] of [
        [DECLINE, 'card_declined'],
        [NO_FUNDS, 'insufficient_funds'],
      ] as const) {
        const org = await t.createOrg({ balance: 1000 });
        await withCard(t, org, number);
        const res = await topUp(t, org, '?amount=2500');
        assert.equal(res.statusCode, 400);
        assert.equal(res.json().code, code);
        assert.match(res.json().message, /^card declined: /);
        assert.equal(await balanceOf(t, org), 1000);
        assert.deepEqual(await journal(t, org), [{ kind: 'opening', delta: 1000 }]);
      }
    });

    it('processor down: 503 with Retry-After, balance and journal unchanged', async () => {
      const org = await t.createOrg({ balance: 1000 });
      await withCard(t, org, DOWN);
      const res = await topUp(t, org, '?amount=2500', { 'idempotency-key': 'down-1' });
      assert.equal(res.statusCode, 503);
      assert.ok(Number(res.headers['retry-after']) > 0);
      assert.match(res.json().message, /nothing was charged/);
      assert.equal(await balanceOf(t, org), 1000);
      assert.deepEqual(await journal(t, org), [{ kind: 'opening', delta: 1000 }]);
      // Nothing was charged, so the key was released: the retry runs again (and fails again).
      const retry = await topUp(t, org, '?amount=2500', { 'idempotency-key': 'down-1' });
      assert.equal(retry.statusCode, 503);
      assert.equal(retry.headers['idempotent-replayed'], undefined);
    });

    it('no saved card: 400', async () => {
      const org = await t.createOrg({ balance: 1000 });
      const res = await topUp(t, org, '?amount=2500');
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'no_card');
      assert.equal(await balanceOf(t, org), 1000);
      assert.deepEqual(await journal(t, org), [{ kind: 'opening', delta: 1000 }]);
    });

    it('refuses bad amounts with 400 naming amount, changing nothing', async () => {
      const org = await t.createOrg({ balance: 1000 });
      await withCard(t, org, SUCCESS);
      for (const query of [
        '',
        '?amount=',
        '?amount=abc',
        '?amount=1.5',
        '?amount=0',
        '?amount=-5',
        '?amount=100001',
        '?amount=499',
        '?amount=1e4',
        '?amount=99999999999999999999',
        '?amount=1&amount=2',
      ]) {
        const res = await topUp(t, org, query);
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
        assert.match(res.json().message, /amount/, query);
      }
      assert.equal(await balanceOf(t, org), 1000);
      assert.deepEqual(await journal(t, org), [{ kind: 'opening', delta: 1000 }]);
      const max = await topUp(t, org, '?amount=100000');
      assert.equal(max.statusCode, 200);
    });

    it('replays a top-up for the same Idempotency-Key and charges once', async () => {
      const org = await t.createOrg({ balance: 0 });
      await withCard(t, org, SUCCESS);
      const headers = { 'idempotency-key': 'topup-once' };
      const responses = await Promise.all(
        Array.from({ length: 10 }, () => topUp(t, org, '?amount=700', headers)),
      );
      const ok = responses.filter((r) => r.statusCode === 200);
      assert.ok(ok.length >= 1);
      assert.equal(ok.length + responses.filter((r) => r.statusCode === 409).length, 10);
      assert.equal(new Set(ok.map((r) => r.json().ref)).size, 1);
      const replay = await topUp(t, org, '?amount=700', headers);
      assert.equal(replay.statusCode, 200);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(await balanceOf(t, org), 700);
      const other = await topUp(t, org, '?amount=800', headers);
      assert.equal(other.statusCode, 409);
      assert.equal(other.json().code, 'idempotency_key_reused');
    });

    it('refuses the api_key query parameter on POST with 403', async () => {
      const org = await t.createOrg({ balance: 1000 });
      await withCard(t, org, SUCCESS);
      const res = await t.app.inject({
        method: 'POST',
        url: `/v2.1/organisation/balance?amount=1000&api_key=${encodeURIComponent(org.apiKey)}`,
      });
      assert.equal(res.statusCode, 403);
      assert.match(res.json().message, /api_key/);
      assert.equal(await balanceOf(t, org), 1000);
    });

    it('reconciliation credits a charge left in doubt exactly once', async () => {
      const org = await t.createOrg({ balance: 0 });
      await withCard(t, org, SUCCESS);
      const db = t.deps.store.db;
      const now = t.clock.now();
      // A process sent this charge and died before the answer: pending row, a claimed key,
      // and the processor's record of a successful charge.
      const ref = await insertTopUp(db, {
        organisationId: org.id,
        amount: 900,
        cardId: 'card',
        idempotencyKey: 'crashed',
        at: iso(now),
        nextCheckAt: iso(now),
      });
      await insertClaim(db, {
        organisationId: org.id,
        key: 'crashed',
        requestHash: 'h',
        owner: topUpOwner(ref),
        at: iso(now),
        expiresAt: iso(new Date(now.getTime() + 86_400_000)),
        leaseNow: iso(t.deps.wallClock.now()),
        lockedUntil: iso(new Date(t.deps.wallClock.now().getTime() + 86_400_000)),
      });
      await insertProcessorCharge(db, {
        reference: `topup-${ref}`,
        token: 'tok',
        amount: 900,
        currency: 'USD',
        status: 'succeeded',
        declineCode: null,
        processorRef: 'ch_test',
        at: iso(now),
      });
      t.clock.advance(1);
      await reconcileTopUps(t.deps);
      await reconcileTopUps(t.deps);
      assert.equal(await balanceOf(t, org), 900);
      assert.deepEqual(await journal(t, org), [{ kind: 'topup', delta: 900 }]);
      const claim = await db
        .selectFrom('idempotency_keys')
        .select(['state', 'response_status', 'response_body'])
        .where('idem_key', '=', 'crashed')
        .executeTakeFirstOrThrow();
      assert.equal(claim.state, 'done');
      assert.equal(Number(claim.response_status), 200);
      assert.deepEqual(JSON.parse(claim.response_body ?? ''), { amount: 900, balance: 900, ref });
      // Settling again (a late answer after reconciliation) changes nothing.
      assert.equal(
        await settleTopUp(db, ref, 'succeeded', { processorRef: 'x', at: iso(t.clock.now()) }),
        false,
      );
    });

    it('reconciliation writes the audit row of each top-up it settles, as the system', async () => {
      const org = await t.createOrg({ balance: 0 });
      await withCard(t, org, SUCCESS);
      const db = t.deps.store.db;
      const now = t.clock.now();
      // Two charges whose processes died before the answer: one succeeded, one was declined,
      // and a third the processor never received.
      const refs: number[] = [];
      for (const [amount, status] of [
        [700, 'succeeded'],
        [800, 'declined'],
        [900, undefined],
      ] as const) {
        const ref = await insertTopUp(db, {
          organisationId: org.id,
          amount,
          cardId: 'card',
          idempotencyKey: null,
          at: iso(now),
          nextCheckAt: iso(now),
        });
        refs.push(ref);
        if (status === undefined) continue;
        await insertProcessorCharge(db, {
          reference: `topup-${ref}`,
          token: 'tok',
          amount,
          currency: 'USD',
          status,
          declineCode: status === 'declined' ? 'card_declined' : null,
          processorRef: `ch_${ref}`,
          at: iso(now),
        });
      }
      assert.deepEqual(await topUpAudit(t, org), []);
      t.clock.advance(1);
      await reconcileTopUps(t.deps);
      await reconcileTopUps(t.deps);
      assert.equal(await balanceOf(t, org), 700);
      const system = { actor: 'system', source: 'service' };
      assert.deepEqual(await topUpAudit(t, org), [
        {
          ...system,
          action: 'topup.succeeded',
          details: { amount: 700, balance: 700, ref: refs[0] },
        },
        {
          ...system,
          action: 'topup.failed',
          details: { amount: '800', reason: 'card_declined', ref: refs[1] },
        },
        {
          ...system,
          action: 'topup.failed',
          details: { amount: '900', reason: 'not_charged', ref: refs[2] },
        },
      ]);
    });
  });

  describe(`top-up when the processor answers too late [${kind}]`, () => {
    let t: TestApp;
    const wall = new ManualWallClock();

    before(async () => {
      t = await startTestApp(
        kind,
        { paymentLatencyMs: 300, paymentTimeoutMs: 30 },
        { wallClock: wall },
      );
    });
    after(() => t.close());

    it('503 with Retry-After at once, then credited exactly once when the answer arrives', async () => {
      const org = await t.createOrg({ balance: 100 });
      await withCard(t, org, SUCCESS);
      const headers = { 'idempotency-key': 'slow-1' };
      const pending = topUp(t, org, '?amount=1500', headers);
      await chargeUnderWay(wall);
      wall.advance(30); // the payment timeout passes; the processor has not answered
      const res = await pending;
      assert.equal(res.statusCode, 503, res.body);
      assert.ok(Number(res.headers['retry-after']) > 0);
      assert.match(res.json().message, /did not answer in time/);
      assert.equal(await balanceOf(t, org), 100);
      assert.deepEqual(await journal(t, org), [{ kind: 'opening', delta: 100 }]);

      // While the charge is in doubt a retry with the same key never charges again.
      const early = await topUp(t, org, '?amount=1500', headers);
      assert.equal(early.statusCode, 409, early.body);
      assert.equal(early.json().code, 'idempotency_in_progress');
      assert.equal(await balanceOf(t, org), 100);

      wall.advance(300); // the processor answers: succeeded

      await eventually(
        async () => ((await balanceOf(t, org)) === 1600 ? true : undefined),
        10_000,
        'the late answer to be credited',
      );
      const replay = await eventually(async () => {
        const r = await topUp(t, org, '?amount=1500', headers);
        return r.statusCode === 200 ? r : undefined;
      });
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.json().amount, 1500);
      assert.equal(replay.json().balance, 1600);
      assert.deepEqual(await journal(t, org), [
        { kind: 'opening', delta: 100 },
        { kind: 'topup', delta: 1500 },
      ]);
      const charges = await t.deps.store.db
        .selectFrom('test_processor_charges')
        .select('reference')
        .execute();
      assert.equal(charges.length, 1);
    });

    it('the late answer writes the audit row the timed-out request could not, as the system', async () => {
      for (const [number, action, reason] of [
        [SUCCESS, 'topup.succeeded', undefined],
        [DECLINE, 'topup.failed', 'card_declined'],
      ] as const) {
        const org = await t.createOrg({ balance: 100 });
        await withCard(t, org, number);
        const pending = topUp(t, org, '?amount=1500');
        await chargeUnderWay(wall);
        wall.advance(30);
        assert.equal((await pending).statusCode, 503);
        const timedOut = await topUpAudit(t, org);
        assert.deepEqual(
          timedOut.map((r) => [r.actor, r.action]),
          [[`api-key:${org.id}`, 'topup.failed']],
        );
        wall.advance(300);
        const rows = await eventually(async () => {
          const all = await topUpAudit(t, org);
          return all.length === 2 ? all : undefined;
        });
        const late = rows[1];
        assert.equal(late?.actor, 'system');
        assert.equal(late?.source, 'service');
        assert.equal(late?.action, action);
        const details = late?.details as { amount: unknown; reason?: string; ref: number };
        assert.equal(details.reason, reason);
        assert.equal(Number(details.amount), 1500);
        assert.ok(Number.isInteger(details.ref));
        assert.equal(await balanceOf(t, org), reason === undefined ? 1600 : 100);
      }
    });
  });

  describe(`top-up whose charge reaches the processor after reconciliation gave up [${kind}]`, () => {
    let t: TestApp;
    const wall = new ManualWallClock();

    before(async () => {
      t = await startTestApp(
        kind,
        { paymentLatencyMs: 1500, paymentTimeoutMs: 30 },
        { wallClock: wall },
      );
    });
    after(() => t.close());

    it('credits the late success once, although the top-up was marked failed', async () => {
      const org = await t.createOrg({ balance: 100 });
      await withCard(t, org, SUCCESS);
      const pending = topUp(t, org, '?amount=1500', { 'idempotency-key': 'late-arrival' });
      await chargeUnderWay(wall);
      wall.advance(30);
      const res = await pending;
      assert.equal(res.statusCode, 503, res.body);
      const db = t.deps.store.db;
      const { ref } = await db
        .selectFrom('topups')
        .select('ref')
        .where('organisation_id', '=', org.id)
        .executeTakeFirstOrThrow();
      // As if the charge were still on its way: the processor has no record of it when asked.
      await db
        .deleteFrom('test_processor_charges')
        .where('reference', '=', `topup-${ref}`)
        .execute();
      t.clock.advance(60);
      await reconcileTopUps(t.deps);
      const failed = await db
        .selectFrom('topups')
        .select('status')
        .where('ref', '=', ref)
        .executeTakeFirstOrThrow();
      assert.equal(failed.status, 'failed');
      assert.equal(await balanceOf(t, org), 100);

      // Then the processor answers: the charge went through, so the balance is credited.
      wall.advance(1500);
      await eventually(
        async () => ((await balanceOf(t, org)) === 1600 ? true : undefined),
        10_000,
        'the late success to be credited',
      );
      assert.deepEqual(await journal(t, org), [
        { kind: 'opening', delta: 100 },
        { kind: 'topup', delta: 1500 },
      ]);
      await reconcileTopUps(t.deps);
      assert.equal(await balanceOf(t, org), 1600);
      const verified = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' });
      assert.equal(verified.json().organisations[0].balance, 1600);
    });
  });

  describe(`top-up without a payment processor [${kind}]`, () => {
    let t: TestApp;

    before(async () => {
      t = await startTestApp(kind, { paymentGateway: 'none' });
    });
    after(() => t.close());

    it('answers 503, not no_card, to an organisation without a card (none can be saved)', async () => {
      const org = await t.createOrg({ balance: 100 });
      const res = await topUp(t, org, '?amount=1500');
      assert.equal(res.statusCode, 503, res.body);
      assert.match(res.json().message, /no payment processor is configured/);
      assert.ok(Number(res.headers['retry-after']) > 0);
      assert.equal(await balanceOf(t, org), 100);
    });

    it('answers 503 and changes nothing', async () => {
      const org = await t.createOrg({ balance: 100 });
      await t.deps.store.db
        .insertInto('payment_cards')
        .values({
          id: 'c1',
          organisation_id: org.id,
          token: 'tok_elsewhere',
          brand: 'Visa',
          last4: '4242',
          exp_month: 12,
          exp_year: 2099,
          is_default: 1,
          created_at: iso(t.clock.now()),
        })
        .execute();
      const res = await topUp(t, org, '?amount=1500');
      assert.equal(res.statusCode, 503);
      assert.match(res.json().message, /no payment processor is configured/);
      assert.ok(Number(res.headers['retry-after']) > 0);
      assert.equal(await balanceOf(t, org), 100);
      assert.deepEqual(await journal(t, org), [{ kind: 'opening', delta: 100 }]);
    });
  });
}

for (const kind of DATABASES) {
  describe(`POST /v2.1/organisation/balance while the simulator clock jumps [${kind}]`, () => {
    let t: TestApp;
    const wall = new ManualWallClock();

    before(async () => {
      t = await startTestApp(
        kind,
        { topUpMin: 500, topUpMax: 100_000, paymentLatencyMs: 400 },
        { wallClock: wall },
      );
    });
    after(() => t.close());

    it('a repeat of a running top-up is a 409 even after the clock passes its lease and replay window', async () => {
      const org = await t.createOrg({ balance: 0 });
      await withCard(t, org, SUCCESS);
      const headers = { 'idempotency-key': 'slow-top-up' };
      const first = topUp(t, org, '?amount=700', headers);
      await eventually(
        async () =>
          (await t.deps.store.db
            .selectFrom('idempotency_keys')
            .select('state')
            .where('idem_key', '=', 'slow-top-up')
            .executeTakeFirst()) ?? undefined,
        10_000,
        'the running idempotency claim',
      );
      await chargeUnderWay(wall);
      t.clock.advance(3 * 86_400);
      const repeat = await topUp(t, org, '?amount=700', headers);
      assert.equal(repeat.statusCode, 409, repeat.body);
      assert.equal(repeat.json().code, 'idempotency_in_progress');
      wall.advance(400); // the processor answers the first request
      const done = await first;
      assert.equal(done.statusCode, 200, done.body);
      assert.equal(await balanceOf(t, org), 700);
      assert.deepEqual(await journal(t, org), [{ kind: 'topup', delta: 700 }]);
    });
  });
}
