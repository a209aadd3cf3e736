import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertAccessible } from './axe.js';
import { browserOnly } from './browser.js';
import type { PortalServer } from './portal-harness.js';
import { DATABASES, ROLES, signIn, signInHttp } from './portal-harness.js';
import { closePortal, openPortalWithBrowser, portalPage } from './portal-suite.js';
import { api } from './shop-fixtures.js';

// Catalogue: the API's filters with the API's messages, prices as money in the organisation's
// currency, read by every role.

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('portal Catalogue, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    describe(`portal Catalogue (${kind})`, { ...browserOnly, concurrency: 1 }, () => {
      let server: PortalServer;

      before(async () => ({ portal: server } = await openPortalWithBrowser(kind)));
      after(() => closePortal(server));

      test('a Viewer filters by country and region and sees prices as money', async () => {
        const page = await portalPage(server);
        await signIn(page, 'Viewer', { to: '/portal/catalogue' });
        await page.getByLabel('Countries').fill('FR');
        await page.getByLabel('Region').selectOption('Europe');
        await page.getByLabel('Description').fill('1GB');
        await page.getByRole('button', { name: 'Search' }).click();
        await page.waitForURL(/countries=FR/);
        const rows = page.locator('tbody tr');
        const count = await rows.count();
        assert.ok(count > 0);
        const expected = await api(
          { baseUrl: server.baseUrl, apiKey: server.organisationApiKey },
          'GET',
          '/v2.1/catalogue?countries=FR&region=Europe&description=1GB',
        );
        const bundles = expected.json as { name: string; price: number }[];
        assert.equal(count, bundles.length);
        const first = bundles[0];
        assert.ok(first !== undefined);
        const row = page.locator('tbody tr', {
          has: page.getByRole('rowheader', { name: first.name, exact: true }),
        });
        const price = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(
          first.price / 100,
        );
        assert.ok((await row.innerText()).includes(price), `${first.name} shows ${price}`);
        assert.equal(
          await page.getByRole('link', { name: /^Buy / }).count(),
          0,
          'a Viewer cannot buy',
        );
        await assertAccessible(page, 'catalogue');
      });

      test("a bad filter is refused next to its field with the API's message in the portal's terms", async () => {
        const caller = { baseUrl: server.baseUrl, apiKey: server.organisationApiKey };
        const fromApi = await api(caller, 'GET', '/v2.1/catalogue?countries=FR,XX');
        assert.equal(fromApi.status, 400);
        const message = (fromApi.json as { message: string }).message;
        const session = await signInHttp(server.baseUrl, 'Viewer');
        const page = await session.get('/portal/catalogue?countries=FR,XX');
        assert.equal(page.status, 400);
        const text = await page.text();
        assert.ok(text.includes('id="countries-error"'));
        // The API names the parameter; the portal names the field by its label.
        assert.match(message, /^query parameter countries: /);
        const shown = message.replace(/^query parameter countries: /, 'Countries: ');
        assert.ok(text.includes(shown.replace(/"/g, '&quot;')), shown);
        assert.ok(!text.includes('query parameter'), 'no API wording');
        const group = await session.get('/portal/catalogue?group=Nope');
        assert.equal(group.status, 400);
        assert.match(await group.text(), /id="group-error"/);
        const browserPage = await portalPage(server);
        await signIn(browserPage, 'Viewer', { to: '/portal/catalogue?region=Atlantis' });
        assert.match(
          await browserPage.locator('#region-error').innerText(),
          /^Region: .*must be one of|^Region must be one of/,
        );
        await assertAccessible(browserPage, 'catalogue with an error');
      });

      test('every role reads the catalogue; only an Admin gets the Buy links', async () => {
        for (const role of ROLES) {
          const session = await signInHttp(server.baseUrl, role);
          const page = await session.get('/portal/catalogue?page=2');
          assert.equal(page.status, 200, role);
          const text = await page.text();
          assert.match(text, /Page 2 of \d+/, role);
          assert.equal(text.includes('/portal/orders/new?item='), role === 'Admin', role);
        }
      });
    });
  }
});
