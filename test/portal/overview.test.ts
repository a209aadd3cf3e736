import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { grantTestCredit } from '../../src/domain/money/ledger.js';
import { updateOrganisationSettings } from '../../src/domain/organisations/organisation-changes.js';
import { sendTestEvent } from '../../src/domain/access/api-access.js';
import { systemActor } from '../../src/domain/audit/audit-log.js';
import { createCallbackWorker } from '../../src/workers/callback-delivery.js';
import { startReceiver } from '../receiver.js';
import type { Receiver } from '../receiver.js';
import { browserOnly } from './browser.js';
import { api } from './money-fixtures.js';
import type { PortalServer } from './portal-harness.js';
import { DATABASES, ROLES, signIn, signInHttp } from './portal-harness.js';
import { closePortal, openPortal, portalPage } from './portal-suite.js';

// The Overview: balance and test credit with its expiry in the user's time zone, data used this
// month, recent orders, eSIMs by profile status and failing callbacks, for every role; and the
// money pages answer fast (with 10,000 eSIMs too: timing.test.ts).

async function sim(portal: PortalServer, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${portal.baseUrl}/_sim${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 200, `${path}: ${await res.text()}`);
}

/** An order of `quantity` new eSIMs with a 1 GB+ bundle for France; their ICCIDs and total. */
async function buyForFrance(portal: PortalServer, quantity: number) {
  const catalogue = await api(portal, '/catalogue?countries=FR&perPage=200');
  const bundles = catalogue.body as { name: string; dataAmount: number; unlimited: boolean }[];
  const bundle = bundles.find((b) => !b.unlimited && b.dataAmount >= 1000);
  assert.ok(bundle !== undefined, 'a bundle for France');
  const res = await fetch(`${portal.baseUrl}/v2.1/orders`, {
    method: 'POST',
    headers: { 'x-api-key': portal.organisationApiKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      type: 'transaction',
      assign: true,
      order: [{ type: 'bundle', item: bundle.name, quantity }],
    }),
  });
  const body = (await res.json()) as {
    orderReference: string;
    total: number;
    order: { iccids: string[] }[];
  };
  assert.equal(res.status, 200, JSON.stringify(body));
  return { reference: body.orderReference, total: body.total, iccids: body.order[0]?.iccids ?? [] };
}

async function fastest(run: () => Promise<Response>, times: number): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < times; i += 1) {
    const started = performance.now();
    const res = await run();
    assert.equal(res.status, 200);
    await res.text();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

for (const kind of DATABASES) {
  describe(`portal Overview (${kind})`, () => {
    let portal: PortalServer;
    let receiver: Receiver;
    let browser: Browser | undefined;
    let order: { reference: string; total: number; iccids: string[] };
    before(async () => {
      ({ portal, browser } = await openPortal(kind));
      receiver = await startReceiver({ behaviours: { '/broken': { status: 503 } } });
      const deps = portal.deps;
      order = await buyForFrance(portal, 2);
      const [used] = order.iccids;
      assert.ok(used !== undefined);
      await sim(portal, `/esims/${used}/install`, {});
      await sim(portal, `/esims/${used}/attach`, { country: 'FR' });
      await sim(portal, `/esims/${used}/usage`, { bytes: 150_000_000 });
      await deps.store.db.transaction().execute((trx) =>
        grantTestCredit(trx, {
          organisationId: portal.organisationId,
          amount: 2_500,
          expiresAt: new Date('2099-07-01T23:30:00Z'),
          description: 'welcome credit',
          at: deps.clock.now(),
        }),
      );
      await updateOrganisationSettings({ ...deps, db: deps.store.db }, portal.organisationId, {
        callbackUrl: `${receiver.url}/broken`,
      });
      await sendTestEvent(deps, portal.organisationId, systemActor);
      await createCallbackWorker(deps, { warn: () => undefined }).drain();
    });
    after(async () => {
      await receiver.close();
      await closePortal(portal);
    });

    test(
      'a Viewer sees money, data used, recent orders, eSIMs by state and failing callbacks',
      browserOnly,
      async () => {
        if (browser === undefined) return;
        const page = await portalPage(portal, {
          width: 390,
          height: 844,
        });
        await signIn(page, 'Viewer');
        const balance = 100_000 - order.total;
        const dollars = `$${(balance / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;
        assert.equal(await page.getByTestId('balance').textContent(), dollars);
        // 23:30 UTC on 1 July is 00:30 on 2 July in London (BST).
        assert.equal(
          await page.getByTestId('test-credit').innerText(),
          '$25.00 (expires 2 Jul 2099, 00:30 BST)',
        );
        assert.equal(await page.getByTestId('data-used').textContent(), '150 MB');
        const orders = await page.locator('#orders-heading + div table tbody tr').allInnerTexts();
        assert.equal(orders.length, 1);
        assert.match(
          orders[0] ?? '',
          // References share their leading (time) digits: the row shows the distinct end.
          new RegExp(`…${order.reference.slice(-8)}[\\s\\S]*2 × esim_`),
        );
        assert.equal(await page.getByTestId('esims-Installed').textContent(), '1');
        assert.equal(await page.getByTestId('esims-Released').textContent(), '1');
        assert.equal(await page.getByTestId('esims-total').textContent(), '2');
        assert.match(
          await page.getByTestId('callbacks-failing').innerText(),
          /0 failed, 1 being retried/,
        );
        // Usable at phone width: nothing wider than the screen.
        const overflow = Number(
          await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'),
        );
        assert.ok(overflow <= 0, `the page is ${overflow}px wider than a phone`);
      },
    );

    test('every role may read the Overview', async () => {
      for (const role of ROLES) {
        const session = await signInHttp(portal.baseUrl, role);
        const res = await session.get('/portal');
        assert.equal(res.status, 200, role);
        assert.match(await res.text(), /data-testid="data-used">150 MB</);
      }
    });

    test('another organisation sees only its own figures', async () => {
      const session = await signInHttp(portal.baseUrl, 'Admin', 'other');
      const html = await (await session.get('/portal')).text();
      assert.match(html, /data-testid="esims-total">0</);
      assert.match(html, /data-testid="data-used">0 MB</);
      assert.match(html, /data-testid="callbacks-ok"/);
    });

    // With 10,000 eSIMs, in timing.test.ts (which has them already).
    test('Overview, Billing and API & callbacks answer in under 300 ms', async (t) => {
      const session = await signInHttp(portal.baseUrl, 'Admin');
      for (const path of ['/portal', '/portal/billing', '/portal/api']) {
        const ms = await fastest(() => session.get(path), 5);
        t.diagnostic(`${path} with 2 eSIMs: ${ms.toFixed(1)} ms (fastest of 5)`);
        assert.ok(ms < 300, `${path} took ${ms.toFixed(0)} ms`);
      }
    });
  });
}
