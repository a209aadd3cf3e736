import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible } from './axe.js';
import { browserOnly } from './browser.js';
import type { PortalServer } from './portal-harness.js';
import { DATABASES, ROLES, signIn, signInHttp } from './portal-harness.js';
import { closePortal, openPortalWithBrowser, portalPage } from './portal-suite.js';
import type { ApiCaller } from './shop-fixtures.js';
import { GB_1GB, api, buyOntoNewEsims } from './shop-fixtures.js';

// eSIMs: search by ICCID, one eSIM's profile, QR code, bundles with usage, location and
// history; Support and Admin send SMS, only an Admin revokes, and nobody sees another
// organisation's eSIM.

interface Seeded {
  readonly used: string;
  readonly spare: string;
}

/** Two eSIMs with a bundle each; the first installed, attached in France, numbered and used. */
async function seed(caller: ApiCaller): Promise<Seeded> {
  const { iccids } = await buyOntoNewEsims(caller, GB_1GB, 2);
  const [used, spare] = iccids;
  assert.ok(used !== undefined && spare !== undefined);
  for (const [path, body] of [
    ['install', { status: 'Installed' }],
    ['attach', { country: 'FR' }],
    ['msisdn', {}],
    ['usage', { bytes: 250_000_000 }],
  ] as const) {
    const done = await api(caller, 'POST', `/_sim/esims/${used}/${path}`, body);
    assert.equal(done.status, 200, `${path}: ${JSON.stringify(done.json)}`);
  }
  return { used, spare };
}

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('portal eSIMs, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    describe(`portal eSIMs (${kind})`, { ...browserOnly, concurrency: 1 }, () => {
      let server: PortalServer;
      let caller: ApiCaller;
      let esims: Seeded;
      // axe-core reads the page's markup, which is the same whatever database the server reads:
      // it runs on SQLite (in Chromium, the dearest step of these tests), not again on PostgreSQL.
      const checkAccessible = (page: Page, label: string) =>
        kind === 'sqlite' ? assertAccessible(page, label) : Promise.resolve();

      before(async () => {
        ({ portal: server } = await openPortalWithBrowser(kind));
        caller = { baseUrl: server.baseUrl, apiKey: server.organisationApiKey };
        esims = await seed(caller);
      });
      after(() => closePortal(server));

      test('Support finds an eSIM by the start of its ICCID, reads it and sends it an SMS', async () => {
        const page = await portalPage(server);
        await signIn(page, 'Support', { to: '/portal/esims' });
        await checkAccessible(page, 'eSIM list');
        await page.getByLabel('ICCID').fill(esims.used.slice(0, 15));
        await page.getByRole('button', { name: 'Search' }).click();
        await page.getByRole('link', { name: esims.used }).click();
        await page.waitForURL(`**/portal/esims/${esims.used}`);
        const text = await page.locator('main').innerText();
        const bundles = await api(caller, 'GET', `/v2.1/esims/${esims.used}/bundles`);
        const assignment = (
          bundles.json as { bundles: { assignments: Record<string, unknown>[] }[] }
        ).bundles[0]?.assignments[0];
        assert.match(text, /Profile status\s+Installed/);
        assert.ok(text.includes(String(assignment?.['bundleState'])), 'the bundle state is shown');
        assert.match(text, /Country\s+FR/);
        assert.match(text, /LPA:1\$/);
        assert.equal(await page.locator('figure.qr svg').count(), 1);
        const meter = page.locator('meter').first();
        assert.equal(await meter.getAttribute('value'), String(assignment?.['usedQuantity']));
        assert.equal(await meter.getAttribute('max'), String(assignment?.['initialQuantity']));
        assert.match(await page.locator('main').innerText(), /History/);
        assert.equal(await page.getByRole('button', { name: 'Revoke', exact: true }).count(), 0);
        await checkAccessible(page, 'eSIM detail');
        await page.getByLabel('Message').fill('Welcome aboard');
        await page.getByRole('button', { name: 'Send SMS' }).click();
        await page.waitForURL(`**/portal/esims/${esims.used}`);
        assert.equal(await page.locator('.flash').innerText(), 'SMS sent');
        const sent = await api(caller, 'GET', '/_sim/sms');
        assert.match(JSON.stringify(sent.json), /Welcome aboard/);
      });

      test('a bad search or SMS is refused next to its field', async () => {
        const session = await signInHttp(server.baseUrl, 'Support');
        const search = await session.get('/portal/esims?iccid=abc');
        assert.equal(search.status, 400);
        assert.match(
          await search.text(),
          /id="iccid-error"[^>]*>ICCID search must be up to 19 digits/,
        );
        const tooLong = await session.post(`/portal/esims/${esims.used}/sms`, {
          message: 'x'.repeat(161),
        });
        assert.equal(tooLong.status, 400);
        assert.match(
          await tooLong.text(),
          /id="message-error"[^>]*>body field message must be 1 to 160 characters, got 161/,
        );
        const noNumber = await session.post(`/portal/esims/${esims.spare}/sms`, {
          message: 'hello',
        });
        assert.equal(noNumber.status, 400);
        const sent = await api(caller, 'GET', '/_sim/sms');
        const forged = await session.post(
          `/portal/esims/${esims.used}/sms`,
          { message: 'forged' },
          { csrf: 'not-the-token' },
        );
        assert.equal(forged.status, 403);
        assert.deepEqual(
          (await api(caller, 'GET', '/_sim/sms')).json,
          sent.json,
          'nothing was sent',
        );
      });

      test('the same SMS form sent twice, at once and again later, sends one SMS', async () => {
        const session = await signInHttp(server.baseUrl, 'Support');
        const page = await (await session.get(`/portal/esims/${esims.used}`)).text();
        const key = /name="key" value="([0-9a-f-]{36})"/.exec(page)?.[1];
        assert.ok(key !== undefined, 'the SMS form carries its key');
        const message = `once ${key.slice(0, 8)}`;
        const send = () => session.post(`/portal/esims/${esims.used}/sms`, { message, key });
        const [first, second] = await Promise.all([send(), send()]);
        const third = await send();
        assert.deepEqual([first.status, second.status, third.status], [303, 303, 303]);
        const sent = JSON.stringify((await api(caller, 'GET', '/_sim/sms')).json);
        assert.equal(sent.split(message).length - 1, 1, 'one SMS with that text');
        const other = await session.post(`/portal/esims/${esims.used}/sms`, {
          message: 'another text',
          key,
        });
        assert.equal(other.status, 409, 'the same form with another text is refused');
      });

      test('an Admin revokes an unused assignment and its unit goes back to inventory', async () => {
        const page = await portalPage(server);
        await signIn(page, 'Admin', { to: `/portal/esims/${esims.spare}` });
        page.once('dialog', (dialog) => void dialog.accept());
        await page.getByRole('button', { name: 'Revoke', exact: true }).click();
        await page.waitForURL(`**/portal/esims/${esims.spare}`);
        assert.match(await page.locator('.flash').innerText(), /back in inventory/);
        assert.match(await page.locator('main').innerText(), /Revoked/);
        const inventory = await api(caller, 'GET', '/v2.1/inventory');
        assert.match(JSON.stringify(inventory.json), new RegExp(GB_1GB));
        await page.getByRole('link', { name: 'Buy a bundle for this eSIM' }).click();
        assert.equal(await page.getByLabel('Existing eSIMs').isChecked(), true);
        assert.equal(await page.getByLabel('ICCIDs').inputValue(), esims.spare);
        await page.getByLabel('Bundle').fill(GB_1GB);
        await page.getByRole('button', { name: 'Review order' }).click();
        await page.getByRole('button', { name: /^Confirm and pay/ }).click();
        await page.waitForURL(/\/portal\/orders\/[0-9a-f-]{36}$/);
        await page.getByRole('link', { name: esims.spare }).click();
        // The revoked assignment, then the new one.
        assert.match(
          await page.locator('main').innerText(),
          /Revoked[\s\S]*(Processing|Queued|Active)/,
        );
      });

      test('every role reads eSIMs; SMS for Admin and Support, revoke for Admin only', async () => {
        const { iccids } = await buyOntoNewEsims(caller, GB_1GB, 1);
        const iccid = iccids[0] ?? '';
        const listed = await api(caller, 'GET', `/v2.1/esims/${iccid}/bundles`);
        const assignmentId = JSON.stringify(listed.json).match(/"id":"([^"]+)"/)?.[1] ?? '';
        assert.notEqual(assignmentId, '');
        await api(caller, 'POST', `/_sim/esims/${iccid}/msisdn`, {});
        for (const role of ROLES) {
          const session = await signInHttp(server.baseUrl, role);
          assert.equal((await session.get('/portal/esims')).status, 200, role);
          const detail = await session.get(`/portal/esims/${iccid}`);
          assert.equal(detail.status, 200, role);
          const page = await detail.text();
          const smsAllowed = role === 'Admin' || role === 'Support';
          assert.equal(page.includes('Send SMS'), smsAllowed, `${role} SMS form`);
          assert.equal(page.includes('/revoke"'), role === 'Admin', `${role} revoke button`);
          assert.equal(page.includes('/portal/orders/new?iccid='), role === 'Admin', `${role} buy`);
          const sms = await session.post(`/portal/esims/${iccid}/sms`, { message: `from ${role}` });
          assert.equal(sms.status, smsAllowed ? 303 : 403, `${role} SMS`);
          if (role !== 'Admin') {
            const path = `/portal/esims/${iccid}/bundles/${GB_1GB}/assignments/${assignmentId}/revoke`;
            assert.equal((await session.post(path)).status, 403, `${role} revoke`);
          }
        }
        const state = await api(caller, 'GET', `/v2.1/esims/${iccid}/bundles`);
        assert.doesNotMatch(
          JSON.stringify(state.json),
          /Revoked/,
          'no refused revoke went through',
        );
      });

      test("another organisation's eSIM is not found", async () => {
        const other = { baseUrl: server.baseUrl, apiKey: server.otherOrganisationApiKey };
        const { iccids } = await buyOntoNewEsims(other, GB_1GB, 1);
        const iccid = iccids[0] ?? '';
        const session = await signInHttp(server.baseUrl, 'Admin');
        assert.equal((await session.get(`/portal/esims/${iccid}`)).status, 404);
        assert.equal(
          (await session.post(`/portal/esims/${iccid}/sms`, { message: 'hi' })).status,
          404,
        );
        const search = await session.get(`/portal/esims?iccid=${iccid}`);
        assert.ok(!(await search.text()).includes(iccid.slice(0, 19) + '</a>'));
      });
    });
  }
});
