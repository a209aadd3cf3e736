import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { assertAccessible } from './axe.js';
import { browserOnly } from './browser.js';
import type { PortalServer } from './portal-harness.js';
import { DATABASES, ROLES, signIn, signInHttp } from './portal-harness.js';
import { closePortal, openPortal, portalPage } from './portal-suite.js';
import { PORTAL_INVENTORY_BATCHES } from '../../src/portal/pages/inventory.js';
import { insertBatch } from '../../src/store/repositories/inventory-repository.js';
import { GB_1GB, api } from './shop-fixtures.js';

// Inventory: the bundles bought and not yet applied, per purchase batch, for every role.

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('portal Inventory, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    describe(`portal Inventory (${kind})`, { concurrency: 1 }, () => {
      let server: PortalServer;
      let browser: Browser | undefined;

      before(async () => ({ portal: server, browser } = await openPortal(kind)));
      after(() => closePortal(server));

      test(
        'units bought in the portal for inventory are listed by batch',
        browserOnly,
        async () => {
          if (browser === undefined) return;
          const page = await portalPage(server);
          await signIn(page, 'Admin', { to: '/portal/inventory' });
          assert.match(await page.locator('main').innerText(), /The inventory is empty/);
          await assertAccessible(page, 'empty inventory');
          await page.goto(`/portal/orders/new?item=${GB_1GB}`);
          await page.getByLabel('Inventory').check();
          await page.getByLabel('Quantity').fill('3');
          await page.getByRole('button', { name: 'Review order' }).click();
          await page.getByRole('button', { name: /^Confirm and pay/ }).click();
          await page.waitForURL(/\/portal\/orders\/[0-9a-f-]{36}$/);
          await page.goto('/portal/inventory');
          const row = page.locator('tbody tr').first();
          assert.match(await row.innerText(), new RegExp(`${GB_1GB}[\\s\\S]*3 of 3`));
          await assertAccessible(page, 'inventory');
          const fromApi = await api(
            { baseUrl: server.baseUrl, apiKey: server.organisationApiKey },
            'GET',
            '/v2.1/inventory',
          );
          assert.match(JSON.stringify(fromApi.json), /"remaining":3/);
        },
      );

      test('every role reads the inventory; only an Admin is offered to buy', async () => {
        for (const role of ROLES) {
          const session = await signInHttp(server.baseUrl, role);
          const page = await session.get('/portal/inventory');
          assert.equal(page.status, 200, role);
          assert.equal(
            (await page.text()).includes('href="/portal/orders/new"'),
            role === 'Admin',
            role,
          );
        }
      });

      // Over HTTP only, so it runs where Chromium is missing too; last, as it fills the inventory.
      test('a large inventory shows its first 1,000 batches and says where the rest are', async () => {
        const at = server.clock.now().toISOString();
        const expiry = new Date(server.clock.now().getTime() + 86_400_000).toISOString();
        await server.deps.store.db.transaction().execute(async (trx) => {
          for (let i = 0; i < PORTAL_INVENTORY_BATCHES + 5; i += 1) {
            await insertBatch(trx, {
              organisationId: server.organisationId,
              bundleName: GB_1GB,
              orderReference: `bulk-${i}`,
              total: 1,
              remaining: 1,
              expiry,
              at,
            });
          }
        });
        const session = await signInHttp(server.baseUrl, 'Admin');
        const page = await (await session.get('/portal/inventory')).text();
        assert.equal(
          page.match(/<td class="num">[0-9]+ of [0-9]+<\/td>/g)?.length,
          PORTAL_INVENTORY_BATCHES,
        );
        assert.match(page, /The first 1,000 batches are shown/);
      });
    });
  }
});
