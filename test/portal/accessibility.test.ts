import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NAV } from '../../src/portal/layout.js';
import { assertAccessible } from './axe.js';
import { browserOnly } from './browser.js';
import type { PortalServer } from './portal-harness.js';
import { DATABASES, signIn, signInHttp } from './portal-harness.js';
import { closePortal, openPortalWithBrowser, portalPage } from './portal-suite.js';
import { GB_1GB, buyOntoNewEsims } from './shop-fixtures.js';

// axe-core over every page of the portal's navigation (and the sign-in page and the detail
// pages), at desktop and phone width: no serious or critical violation anywhere.
// axe reads the page the templates make from the same rows on either database, so it runs on
// SQLite; on PostgreSQL every one of those pages is checked to answer 200 over HTTP.

const WIDTHS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 375, height: 740 },
] as const;

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('portal accessibility, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    describe(`portal accessibility (${kind})`, { ...browserOnly, concurrency: 1 }, () => {
      let server: PortalServer;
      let detailPages: string[];

      before(async () => {
        ({ portal: server } = await openPortalWithBrowser(kind));
        const caller = { baseUrl: server.baseUrl, apiKey: server.organisationApiKey };
        const { reference, iccids } = await buyOntoNewEsims(caller, GB_1GB, 1);
        detailPages = [
          `/portal/orders/${reference}`,
          `/portal/esims/${iccids[0] ?? ''}`,
          '/portal/orders/new',
        ];
      });
      after(() => closePortal(server));

      test('every portal page answers 200', async () => {
        const signedOut = await fetch(`${server.baseUrl}/portal/sign-in`);
        assert.equal(signedOut.status, 200, '/portal/sign-in');
        const session = await signInHttp(server.baseUrl, 'Admin');
        for (const path of [...NAV.map((item) => item.href), ...detailPages]) {
          const response = await session.get(path);
          await response.text();
          assert.equal(response.status, 200, path);
        }
      });

      if (kind !== 'sqlite') return;
      test('every portal page passes axe-core at desktop and phone width', async () => {
        assert.ok(NAV.length >= 9, 'every page of the navigation is checked');
        // Each page is loaded once and checked at both widths: the viewport changes under the
        // loaded page, which lays it out again as a page opened at that width.
        const page = await portalPage(server, WIDTHS[0]);
        const atBothWidths = async (label: string) => {
          for (const size of WIDTHS) {
            await page.setViewportSize(size);
            await assertAccessible(page, `${label} (${size.name})`);
          }
        };
        await page.goto('/portal/sign-in');
        await atBothWidths('sign-in');
        await signIn(page, 'Admin');
        for (const path of [...NAV.map((item) => item.href), ...detailPages]) {
          await page.setViewportSize(WIDTHS[0]);
          const response = await page.goto(path);
          assert.equal(response?.status(), 200, path);
          await atBothWidths(path);
        }
      });
    });
  }
});
