import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { reconcileTopUps } from '../../src/domain/money/top-up.js';
import { saveCard } from '../../src/domain/money/save-card.js';
import { listAuditEntries } from '../../src/store/repositories/audit-repository.js';
import { eventually } from '../harness.js';
import { ManualWallClock } from '../manual-wall-clock.js';
import { api, apiBalance, hiddenValue } from './money-fixtures.js';
import type { HttpSession, PortalServer } from './portal-harness.js';
import { DATABASES, signInHttp, startPortal } from './portal-harness.js';

// A first payment whose answer comes after the payment timeout: the Billing form answers 503,
// and the card becomes the one top-up charges once the charge is known to have succeeded,
// whether the late answer settles it in the same process or reconciliation does after a
// restart. The wall clock is the test's, so the timeout and the processor's latency happen when
// the test says.

const LATENCY_MS = 300;
const TIMEOUT_MS = 30;

/** Waits until the first payment's charge is at the processor and its timeout is running. */
const chargeUnderWay = (wall: ManualWallClock) =>
  eventually(
    async () => (wall.waiting === 2 ? true : undefined),
    10_000,
    'the charge and the payment timeout to be under way',
  );

async function savedCard(session: HttpSession): Promise<string | undefined> {
  const page = await (await session.get('/portal/billing')).text();
  return /data-testid="saved-card">([^<]*)</.exec(page)?.[1];
}

/** Submits the card form with a first payment of $25 and lets the payment timeout pass. */
async function timedOutFirstPayment(
  session: HttpSession,
  wall: ManualWallClock,
  number: string,
): Promise<void> {
  const page = await (await session.get('/portal/billing')).text();
  const pending = session.post('/portal/billing/card', {
    number,
    expiry: '12/39',
    cvc: '123',
    payment: '25',
    idempotencyKey: hiddenValue(page, 'idempotencyKey'),
  });
  await chargeUnderWay(wall);
  wall.advance(TIMEOUT_MS);
  const res = await pending;
  assert.equal(res.status, 503);
  assert.match(await res.text(), /did not answer in time/);
}

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe(
  'portal first payment answered after the timeout, on each database',
  { concurrency: true },
  () => {
    for (const kind of DATABASES) {
      describe(
        `portal first payment answered after the timeout (${kind})`,
        { concurrency: 1 },
        () => {
          const wall = new ManualWallClock();
          let portal: PortalServer;
          before(async () => {
            portal = await startPortal(kind, {
              config: { paymentLatencyMs: LATENCY_MS, paymentTimeoutMs: TIMEOUT_MS },
              wallClock: wall,
            });
          });
          after(() => portal.close());

          test('the card becomes the default once the late answer or reconciliation settles the charge', async () => {
            let session = await signInHttp(portal.baseUrl, 'Finance');
            const opening = await apiBalance(portal);

            // The processor answers after the request gave up: in doubt, nothing credited, no card yet.
            await timedOutFirstPayment(session, wall, '4242 4242 4242 4242');
            assert.equal(await apiBalance(portal), opening);
            assert.equal(await savedCard(session), undefined);
            const before = await api(portal, '/organisation/balance?amount=500', {
              method: 'POST',
            });
            assert.equal(before.status, 400);
            assert.equal((before.body as { code: string }).code, 'no_card');

            // The answer arrives in the same process: credited once, and the card is the default.
            wall.advance(LATENCY_MS);
            await eventually(
              async () =>
                (await savedCard(session)) === 'Visa •••• 4242, expires 12/39' ? true : undefined,
              10_000,
              'the late answer to make the card the default',
            );
            assert.equal(await apiBalance(portal), opening + 2500);
            // The API top-up now charges that card (every charge outlasts the timeout here).
            const topUp = api(portal, '/organisation/balance?amount=500', { method: 'POST' });
            await chargeUnderWay(wall);
            wall.advance(TIMEOUT_MS);
            assert.equal(
              (await topUp).status,
              503,
              'the charge was sent, not refused for want of a card',
            );
            wall.advance(LATENCY_MS);
            await eventually(
              async () => ((await apiBalance(portal)) === opening + 3000 ? true : undefined),
              10_000,
              'the top-up to be credited',
            );

            // A second card whose first payment times out, then the server stops before the answer:
            // the restarted server's reconciliation settles it and adopts the card.
            await timedOutFirstPayment(session, wall, '5555 5555 5555 4444');
            await portal.restart();
            wall.advance(LATENCY_MS);
            session = await signInHttp(portal.baseUrl, 'Finance');
            assert.equal(await savedCard(session), 'Visa •••• 4242, expires 12/39');
            await reconcileTopUps(portal.deps, { atStart: true });
            assert.equal(await savedCard(session), 'Mastercard •••• 4444, expires 12/39');
            assert.equal(await apiBalance(portal), opening + 5500);

            // Each late settlement has its audit rows, as the system.
            const rows = await listAuditEntries(portal.deps.store.db, {
              organisationId: portal.organisationId,
              limit: 50,
            });
            const system = rows.filter((r) => r.actor === 'system' && r.source === 'service');
            assert.equal(system.filter((r) => r.action === 'card.saved').length, 2);
            assert.deepEqual(
              system
                .filter((r) => r.action === 'topup.succeeded')
                .map((r) => (JSON.parse(r.details) as { amount: number }).amount),
              [2500, 500, 2500],
            );
          });

          test('a card saved while the first payment is in doubt stays the default when it succeeds', async () => {
            const session = await signInHttp(portal.baseUrl, 'Admin');
            const before = await apiBalance(portal);
            await timedOutFirstPayment(session, wall, '4242 4242 4242 4242');
            // Meanwhile another card is saved (the CLI's esim org card): the newest card is the one.
            await saveCard(portal.deps, portal.organisationId, {
              number: '5555555555554444',
              expMonth: 1,
              expYear: 2041,
            });
            assert.equal(await savedCard(session), 'Mastercard •••• 4444, expires 01/41');
            wall.advance(LATENCY_MS);
            await eventually(
              async () => ((await apiBalance(portal)) === before + 2500 ? true : undefined),
              10_000,
              'the late answer to be credited',
            );
            assert.equal(await savedCard(session), 'Mastercard •••• 4444, expires 01/41');
          });
        },
      );
    }
  },
);
