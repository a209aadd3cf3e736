import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserOnly } from './browser.js';
import type { PortalServer } from './portal-harness.js';
import { DATABASES, signIn, signInHttp } from './portal-harness.js';
import { closePortal, openPortal, portalPage } from './portal-suite.js';
import type { ApiCaller } from './shop-fixtures.js';
import { GB_1GB, api, buyOntoNewEsims } from './shop-fixtures.js';

// The eSIM page's service actions: an Admin suspends, unsuspends and deletes an eSIM (each a
// CSRF-checked form), a deleted eSIM shows as deactivated in the page and the list; roles
// without esims.write see no action and are refused on the server. The API & callbacks page sets
// the IP allow-list.

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('portal eSIM state and IP allow-list, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    describe(`portal eSIM state and IP allow-list (${kind})`, { concurrency: 1 }, () => {
      let server: PortalServer;
      let browser: Browser | undefined;
      let caller: ApiCaller;
      let iccid: string;

      before(async () => {
        ({ portal: server, browser } = await openPortal(kind));
        caller = { baseUrl: server.baseUrl, apiKey: server.organisationApiKey };
        const { iccids } = await buyOntoNewEsims(caller, GB_1GB, 1);
        iccid = iccids[0] ?? '';
      });
      after(() => closePortal(server));

      const suspended = async () =>
        ((await api(caller, 'GET', `/v2.5/esims/${iccid}/suspend`)).json as { suspended: boolean })
          .suspended;

      test(
        'Admin suspends, unsuspends and deletes an eSIM; it then reads as deactivated',
        browserOnly,
        async () => {
          if (browser === undefined) return;
          const page = await portalPage(server);
          page.on('dialog', (dialog) => void dialog.accept());
          await signIn(page, 'Admin', { to: `/portal/esims/${iccid}` });
          assert.equal(await page.getByTestId('esim-state').innerText(), 'Active');
          await page.getByRole('button', { name: 'Suspend' }).click();
          await page.getByRole('button', { name: 'Unsuspend' }).waitFor();
          assert.match(await page.getByTestId('esim-state').innerText(), /^Suspended/);
          assert.equal(await suspended(), true);
          // The list has a State column: the suspended eSIM reads so there too.
          await page.goto('/portal/esims');
          const headers = await page.locator('table thead th').allInnerTexts();
          assert.deepEqual(headers.slice(0, 3), ['ICCID', 'State', 'Profile']);
          const row = page.getByRole('row').filter({ hasText: iccid });
          assert.deepEqual((await row.locator('td').allInnerTexts()).slice(0, 2), [
            'Suspended',
            'Released',
          ]);
          await page.goto(`/portal/esims/${iccid}`);
          await page.getByRole('button', { name: 'Unsuspend' }).click();
          await page.getByRole('button', { name: 'Suspend' }).waitFor();
          assert.equal(await suspended(), false);
          await page.getByRole('button', { name: 'Delete eSIM' }).click();
          await page.getByText('This eSIM was deleted').waitFor();
          assert.match(await page.getByTestId('esim-state').innerText(), /^Deactivated/);
          assert.match(await page.locator('main').innerText(), /Profile status\s+Deactivated/);
          await page.goto('/portal/esims');
          assert.ok(
            !(await page.locator('main').innerText()).includes(iccid),
            'gone from the list',
          );
          const listed = (await api(caller, 'GET', '/v2.1/esims')).json as {
            esims: { iccid: string }[];
          };
          assert.ok(!listed.esims.some((e) => e.iccid === iccid), 'gone from the API list');
        },
      );

      test('Support sees no service action and is refused on the server', async () => {
        const [other = ''] = (await buyOntoNewEsims(caller, GB_1GB, 1)).iccids;
        const session = await signInHttp(server.baseUrl, 'Support');
        const page = await (await session.get(`/portal/esims/${other}`)).text();
        assert.ok(!page.includes('Delete eSIM'));
        const refused = await session.post(`/portal/esims/${other}/suspend`);
        assert.equal(refused.status, 403);
        const admin = await signInHttp(server.baseUrl, 'Admin');
        const noCsrf = await admin.post(`/portal/esims/${other}/suspend`, {}, { csrf: 'wrong' });
        assert.equal(noCsrf.status, 403);
        assert.equal(
          (
            (await api(caller, 'GET', `/v2.5/esims/${other}/suspend`)).json as {
              suspended: boolean;
            }
          ).suspended,
          false,
        );
      });

      test('Admin sets and clears the IP allow-list on the API page', browserOnly, async () => {
        if (browser === undefined) return;
        const page = await portalPage(server);
        await signIn(page, 'Admin', { to: '/portal/api' });
        await page.getByLabel('Allowed addresses').fill('not-an-address');
        await page.getByRole('button', { name: 'Save IP allow-list' }).click();
        await page.locator('#field-ipAllowList-error').waitFor();
        const error = await page.locator('#field-ipAllowList-error').innerText();
        assert.match(error, /^"not-an-address" is not an IP address or CIDR range/);
        assert.doesNotMatch(error, /ipAllowList/, 'no internal field name');
        await page.getByLabel('Allowed addresses').fill('127.0.0.1\n10.0.0.0/8');
        await page.getByRole('button', { name: 'Save IP allow-list' }).click();
        await page.getByText('IP allow-list saved: 127.0.0.1, 10.0.0.0/8.').waitFor();
        // The test calls from 127.0.0.1: still allowed.
        assert.equal((await api(caller, 'GET', '/v2.1/organisation')).status, 200);
        await page.getByLabel('Allowed addresses').fill('10.0.0.0/8');
        await page.getByRole('button', { name: 'Save IP allow-list' }).click();
        await page.getByText('IP allow-list saved: 10.0.0.0/8.').waitFor();
        assert.equal((await api(caller, 'GET', '/v2.1/organisation')).status, 403);
        // The wire says only 403; the owner learns why: Activity, and the request journal.
        await page.getByRole('link', { name: 'Activity' }).click();
        const refusal = page.getByRole('row').filter({ hasText: 'API call refused' });
        assert.deepEqual(
          await refusal
            .locator('td')
            .allInnerTexts()
            .then((t) => t.slice(1)),
          [
            'API call refused (IP allow-list)',
            'API key',
            '127.0.0.1',
            'GET /v2.1/organisation from 127.0.0.1: not in the IP allow-list, answered as an invalid key',
          ],
        );
        await page.goto('/portal/simulator/requests');
        const journal = page.getByRole('row').filter({ hasText: '/v2.1/organisation' }).first();
        assert.match(await journal.innerText(), /GET\s+\/v2\.1\/organisation\s+403/);
        await page.getByText('A call from an address outside your IP allow-list').waitFor();
        await page.goto('/portal/api');
        await page.getByLabel('Allowed addresses').fill('');
        await page.getByRole('button', { name: 'Save IP allow-list' }).click();
        await page.getByText('IP allow-list cleared').waitFor();
        assert.equal((await api(caller, 'GET', '/v2.1/organisation')).status, 200);
      });

      test('the IP allow-list form is checked on the server (Admin yes, Developer and Support no)', async () => {
        const admin = await signInHttp(server.baseUrl, 'Admin');
        const bad = await admin.post('/portal/api/ip-allow-list', { ipAllowList: 'nope' });
        assert.equal(bad.status, 400);
        assert.match(
          await bad.text(),
          /&quot;nope&quot; is not an IP address|"nope" is not an IP address/,
        );
        const set = await admin.post('/portal/api/ip-allow-list', { ipAllowList: '10.0.0.0/8' });
        assert.equal(set.status, 303);
        assert.equal((await api(caller, 'GET', '/v2.1/organisation')).status, 403);
        for (const role of ['Developer', 'Support'] as const) {
          const other = await signInHttp(server.baseUrl, role);
          const refused = await other.post('/portal/api/ip-allow-list', { ipAllowList: '' });
          assert.equal(refused.status, 403, role);
        }
        const cleared = await admin.post('/portal/api/ip-allow-list', { ipAllowList: '' });
        assert.equal(cleared.status, 303);
        assert.equal((await api(caller, 'GET', '/v2.1/organisation')).status, 200);
      });
    });
  }
});
