import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { NAV } from '../../src/portal/layout.js';
import { assertAccessible } from './axe.js';
import { browserOnly, newPage } from './browser.js';
import type { PortalServer } from './portal-harness.js';
import { DATABASES, signIn } from './portal-harness.js';
import { closePortal, openPortalWithBrowser } from './portal-suite.js';
import { GB_1GB, buyOntoNewEsims } from './shop-fixtures.js';

// axe-core over every page of the portal's navigation (and the sign-in page and the detail
// pages), at desktop and phone width: no serious or critical violation anywhere.

const WIDTHS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 375, height: 740 },
] as const;

for (const kind of DATABASES) {
  describe(`portal accessibility (${kind})`, browserOnly, () => {
    let server: PortalServer;
    let browser: Browser;
    let detailPages: string[];

    before(async () => {
      ({ portal: server, browser } = await openPortalWithBrowser(kind));
      const caller = { baseUrl: server.baseUrl, apiKey: server.organisationApiKey };
      const { reference, iccids } = await buyOntoNewEsims(caller, GB_1GB, 1);
      detailPages = [
        `/portal/orders/${reference}`,
        `/portal/esims/${iccids[0] ?? ''}`,
        '/portal/orders/new',
      ];
    });
    after(() => closePortal(server));

    test('every portal page passes axe-core at desktop and phone width', async () => {
      assert.ok(NAV.length >= 9, 'every page of the navigation is checked');
      for (const size of WIDTHS) {
        const { context, page } = await newPage(browser, server.baseUrl, size);
        try {
          await page.goto('/portal/sign-in');
          await assertAccessible(page, `sign-in (${size.name})`);
          await signIn(page, 'Admin');
          for (const path of [...NAV.map((item) => item.href), ...detailPages]) {
            const response = await page.goto(path);
            assert.equal(response?.status(), 200, path);
            await assertAccessible(page, `${path} (${size.name})`);
          }
        } finally {
          await context.close();
        }
      }
    });
  });
}
