import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { NAV } from '../../src/portal/layout.js';
import { browserOnly } from './browser.js';
import type { PortalServer } from './portal-harness.js';
import { DATABASES, signIn, signInHttp } from './portal-harness.js';
import { closePortal, openPortalWithBrowser, portalPage } from './portal-suite.js';
import { GB_1GB, api, buyOntoNewEsims } from './shop-fixtures.js';

// Every portal page at desktop (1280 px) and phone (375 px) width: nothing wider than the
// screen, and no control cut off (outside the screen, or its own text clipped). At phone width
// the navigation sits behind a Menu button that opens it.
// The layout is that of the page the templates make from the same rows on either database, so the
// browser checks run on SQLite; on PostgreSQL every one of those pages is checked to answer over
// HTTP (200, and 404 for the page that does not exist).

const WIDTHS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 375, height: 740 },
] as const;

/** The controls that are cut off: outside the viewport, or wider than their own box. */
const CLIPPED_CONTROLS = `(() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.querySelectorAll('a, button, input, select, textarea, summary')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (getComputedStyle(el).visibility === 'hidden') continue;
    if (el.closest('.skip')) continue;
    const ownClip = (el.tagName === 'BUTTON' || el.tagName === 'SELECT') && el.scrollWidth > el.clientWidth + 1;
    if (r.left < -1 || r.right > width + 1 || ownClip) {
      out.push(el.tagName.toLowerCase() + ' "' + (el.textContent || el.getAttribute('name') || '').trim().slice(0, 40) + '" ' + Math.round(r.left) + '..' + Math.round(r.right));
    }
  }
  // A table that scrolls sideways hides its last columns: tables reflow instead.
  for (const wrap of document.querySelectorAll('.table-wrap')) {
    if (wrap.scrollWidth > wrap.clientWidth + 1) {
      out.push('table "' + (wrap.getAttribute('aria-label') || '') + '" scrolls sideways by ' + (wrap.scrollWidth - wrap.clientWidth) + 'px');
    }
  }
  return out;
})()`;

async function assertFits(page: Page, label: string): Promise<void> {
  const overflow = Number(
    await page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    ),
  );
  assert.ok(overflow <= 0, `${label}: the page is ${overflow}px wider than the screen`);
  const clipped = (await page.evaluate(CLIPPED_CONTROLS)) as string[];
  assert.deepEqual(clipped, [], `${label}: controls cut off`);
}

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('portal layout, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    describe(`portal layout (${kind})`, { ...browserOnly, concurrency: 1 }, () => {
      let server: PortalServer;
      let pages: string[];

      before(async () => {
        ({ portal: server } = await openPortalWithBrowser(kind));
        const caller = { baseUrl: server.baseUrl, apiKey: server.organisationApiKey };
        const { reference, iccids } = await buyOntoNewEsims(caller, GB_1GB, 1);
        const iccid = iccids[0] ?? '';
        for (const [path, body] of [
          [`/_sim/esims/${iccid}/install`, {}],
          [`/_sim/esims/${iccid}/attach`, { country: 'GB' }],
          [`/_sim/esims/${iccid}/usage`, { bytes: 1_000_000_000 }],
        ] as const) {
          assert.equal((await api(caller, 'POST', path, body)).status, 200, path);
        }
        pages = [
          ...NAV.map((item) => item.href),
          `/portal/orders/${reference}`,
          `/portal/esims/${iccid}`,
          '/portal/orders/new',
          '/portal/account',
          '/portal/simulator',
          '/portal/simulator/outbox',
          '/portal/simulator/callbacks',
          '/portal/simulator/requests',
          '/portal/no-such-page',
        ];
      });
      after(() => closePortal(server));

      test('every page answers (200, 404 for no such page)', async () => {
        const signedOut = await fetch(`${server.baseUrl}/portal/sign-in`);
        assert.equal(signedOut.status, 200, '/portal/sign-in');
        const session = await signInHttp(server.baseUrl, 'Admin');
        for (const path of pages) {
          const response = await session.get(path);
          await response.text();
          assert.equal(response.status, path === '/portal/no-such-page' ? 404 : 200, path);
        }
      });

      if (kind !== 'sqlite') return;

      // Each page is loaded once and checked at both widths: the viewport changes under the
      // loaded page, which lays it out again as a page opened at that width.
      const fitsAtBothWidths = async (page: Page, label: string) => {
        for (const size of WIDTHS) {
          await page.setViewportSize(size);
          await assertFits(page, `${label} (${size.name})`);
        }
      };

      test('the sign-in page fits at 1280 px and 375 px with no control cut off', async () => {
        const page = await portalPage(server, WIDTHS[0]);
        await page.goto('/portal/sign-in');
        await fitsAtBothWidths(page, 'sign-in');
      });

      test('every signed-in page fits at 1280 px and 375 px with no control cut off', async () => {
        const page = await portalPage(server, WIDTHS[0]);
        await signIn(page, 'Admin', { to: pages[0] });
        for (const path of pages) {
          await page.setViewportSize(WIDTHS[0]);
          if (path !== pages[0]) await page.goto(path);
          await fitsAtBothWidths(page, path);
        }
      });

      test('at phone width the navigation opens from the Menu button', async () => {
        const page = await portalPage(server, { width: 375, height: 740 });
        await signIn(page, 'Admin');
        const orders = page
          .getByRole('navigation', { name: 'Portal' })
          .getByRole('link', { name: 'Orders' });
        assert.equal(await orders.isVisible(), false, 'folded at first');
        const menu = page.getByRole('button', { name: 'Menu' });
        await menu.click();
        assert.equal(await menu.getAttribute('aria-expanded'), 'true');
        await orders.click();
        await page.waitForURL((url) => url.pathname === '/portal/orders');
        // Tables reflow: every cell of a row is labelled by its column.
        const pairs = (await page.evaluate(`(() => {
          const table = document.querySelector('table.reflow');
          const heads = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim());
          const cells = [...table.querySelector('tbody tr').children];
          return cells.map((cell, i) => [cell.getAttribute('data-label'), heads[i]]);
        })()`)) as [string, string][];
        assert.ok(pairs.length >= 4, 'a row of the orders table');
        for (const [label, heading] of pairs) assert.equal(label, heading);
      });
    });
  }
});
