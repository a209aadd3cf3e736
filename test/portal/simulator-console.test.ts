import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { updateOrganisationSettings } from '../../src/domain/organisations/organisation-changes.js';
import { signBody } from '../../src/callbacks/signer.js';
import { createCallbackWorker } from '../../src/workers/callback-delivery.js';
import { startReceiver } from '../receiver.js';
import type { Receiver } from '../receiver.js';
import { assertAccessible } from './axe.js';
import { browserOnly } from './browser.js';
import type { PortalServer } from './portal-harness.js';
import { DATABASES, signIn, signInHttp, startPortal } from './portal-harness.js';
import { closePortal, openPortal, portalPage } from './portal-suite.js';
import { GB_1GB, api, buyOntoNewEsims } from './shop-fixtures.js';

// The simulator console of the portal: the banner with the simulated time on every page, the
// clock, an eSIM driven through the network's events (own eSIMs only), usage drawn per day,
// callbacks inspected with the headers and body each attempt sent, the outboxes and the request
// journal of the organisation's own calls; and none of it in production.

async function consoleAction(page: Page, button: string): Promise<void> {
  await page.getByRole('button', { name: button, exact: true }).click();
  await page.waitForSelector('p.flash, p.form-error');
}

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('portal simulator console, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    describe(`portal simulator console (${kind})`, { concurrency: 1 }, () => {
      let portal: PortalServer;
      let browser: Browser | undefined;
      let receiver: Receiver;
      let iccid: string;
      let otherIccid: string;

      before(async () => {
        ({ portal, browser } = await openPortal(kind));
        receiver = await startReceiver();
        const caller = { baseUrl: portal.baseUrl, apiKey: portal.organisationApiKey };
        ({
          iccids: [iccid = ''],
        } = await buyOntoNewEsims(caller, GB_1GB, 1));
        const other = { baseUrl: portal.baseUrl, apiKey: portal.otherOrganisationApiKey };
        ({
          iccids: [otherIccid = ''],
        } = await buyOntoNewEsims(other, GB_1GB, 1));
        await updateOrganisationSettings(
          { ...portal.deps, db: portal.deps.store.db },
          portal.organisationId,
          { callbackUrl: `${receiver.url}/hook`, callbackVersion: 'V3' },
        );
      });
      after(async () => {
        await receiver.close();
        await closePortal(portal);
      });

      test('advancing the clock changes the banner on every page', browserOnly, async () => {
        if (browser === undefined) return;
        const page = await portalPage(portal);
        await signIn(page, 'Admin');
        const before = await page.getByTestId('sim-time').getAttribute('datetime');
        assert.equal(await page.getByTestId('sim-offset').textContent(), 'in step with real time');
        await page.getByRole('link', { name: 'Simulator', exact: true }).click();
        await assertAccessible(page, 'simulator console');
        await page.getByLabel('Advance by').fill('8');
        await page.getByLabel('Unit').selectOption('days');
        await consoleAction(page, 'Advance the clock');
        assert.match(await page.locator('p.flash').innerText(), /The clock moved 8 days/);
        assert.equal(
          await page.getByTestId('sim-offset').textContent(),
          '8 days ahead of real time',
        );
        const after = await page.getByTestId('sim-time').getAttribute('datetime');
        const moved = Date.parse(after ?? '') - Date.parse(before ?? '');
        assert.ok(moved >= 8 * 86_400_000, `the banner's time moved ${moved} ms`);
        await page.goto('/portal/orders');
        assert.equal(
          await page.getByTestId('sim-offset').textContent(),
          '8 days ahead of real time',
        );
        // One unit is named in the singular.
        await page.goto('/portal/simulator');
        await page.getByLabel('Advance by').fill('1');
        await page.getByLabel('Unit').selectOption('hours');
        await consoleAction(page, 'Advance the clock');
        assert.match(await page.locator('p.flash').innerText(), /^The clock moved 1 hour: /);
        assert.equal(
          await page.getByTestId('sim-offset').textContent(),
          '8 days, 1 hour ahead of real time',
        );
      });

      test(
        'using data draws it on the charts and its callback is inspected with headers and body',
        browserOnly,
        async () => {
          if (browser === undefined) return;
          const page = await portalPage(portal);
          await signIn(page, 'Developer', { to: '/portal/simulator' });
          await page.getByLabel('ICCID').fill(iccid);
          await consoleAction(page, 'Install');
          assert.match(await page.locator('p.flash').innerText(), /is now Installed/);
          await page.getByLabel('Country (Attach or move)').fill('GB');
          await consoleAction(page, 'Attach or move');
          assert.match(await page.locator('p.flash').innerText(), /attached to .* in GB/);
          await page.getByLabel('Data (MB)').fill('600');
          await consoleAction(page, 'Use data');
          assert.match(await page.locator('p.flash').innerText(), /600 MB used on eSIM/);

          // The simulated day is today's bar on both charts (the clock moved, the chart with it).
          const today = portal.deps.clock.now().toISOString().slice(0, 10);
          await page.goto('/portal');
          assert.equal(await page.getByTestId('data-used').textContent(), '600 MB');
          const bar = page.locator(`[data-testid="usage-chart"] rect[data-day="${today}"]`);
          assert.equal(await bar.getAttribute('data-bytes'), '600000000');
          await page.goto(`/portal/esims/${iccid}`);
          const esimBar = page.locator(
            `[data-testid="esim-usage-chart"] rect[data-day="${today}"]`,
          );
          assert.equal(await esimBar.getAttribute('data-bytes'), '600000000');

          await createCallbackWorker(portal.deps, { warn: () => undefined }).drain();
          const sent = receiver.at('/hook').find((r) => r.rawBody.includes('"threshold":50'));
          assert.ok(sent !== undefined, 'the 50 % Utilisation callback reached the receiver');
          await page.goto('/portal/simulator/callbacks');
          await page.getByRole('link', { name: 'Utilisation 50 %' }).click();
          await assertAccessible(page, 'a callback in the console');
          const headers = await page.getByTestId('request-headers').innerText();
          const signature = signBody(sent.rawBody, portal.organisationApiKey);
          assert.match(
            headers,
            new RegExp(`x-signature-sha256: ${signature.replace(/[+/]/g, '\\$&')}`, 'i'),
          );
          assert.match(headers, /x-delivery-attempt: 1/i);
          const body = JSON.parse(await page.getByTestId('request-body').innerText()) as {
            iccid: string;
            threshold: number;
          };
          assert.deepEqual([body.iccid, body.threshold], [iccid, 50]);
        },
      );

      test('each attempt shows the body it sent, V2 and V3; a V3 body is kept once, in its delivery', async () => {
        const developer = await signInHttp(portal.baseUrl, 'Developer');
        const db = portal.deps.store.db;
        const worker = createCallbackWorker(portal.deps, { warn: () => undefined });
        const unescape = (text: string) =>
          text
            .replace(/&quot;/g, '"')
            .replace(/&#39;/g, "'")
            .replace(/&lt;/g, '<')
            .replace(/&gt;/g, '>')
            .replace(/&amp;/g, '&');
        /** Attaches the eSIM in `country` with callbacks in `version`: what was sent and shown. */
        const attachSent = async (version: 'V2' | 'V3', country: string) => {
          await updateOrganisationSettings({ ...portal.deps, db }, portal.organisationId, {
            callbackUrl: `${receiver.url}/hook`,
            callbackVersion: version,
          });
          const before = receiver.at('/hook').length;
          const attached = await fetch(`${portal.baseUrl}/_sim/esims/${iccid}/attach`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ country }),
          });
          assert.equal(attached.status, 200, await attached.text());
          await worker.drain();
          const sent = receiver.at('/hook').slice(before);
          assert.equal(sent.length, 1, `one ${version} callback for the attach in ${country}`);
          const id = String(sent[0]?.headers['x-event-id']);
          const page = await developer.get(`/portal/simulator/callbacks/${id}`);
          assert.equal(page.status, 200);
          const shown = /data-testid="request-body">\n?([\s\S]*?)<\/pre>/.exec(await page.text());
          assert.ok(shown?.[1] !== undefined, 'the page shows the body sent');
          const kept = await db
            .selectFrom('callback_attempts')
            .select('request_body')
            .where('event_id', '=', id)
            .executeTakeFirstOrThrow();
          return { rawBody: sent[0]?.rawBody ?? '', shown: JSON.parse(unescape(shown[1])), kept };
        };
        const v2 = await attachSent('V2', 'FR');
        assert.deepEqual(v2.shown, JSON.parse(v2.rawBody));
        assert.equal(v2.kept.request_body, v2.rawBody, 'a V2 body differs from the payload: kept');
        assert.equal((v2.shown as { country?: unknown }).country, undefined, 'the V2 shape');
        const v3 = await attachSent('V3', 'DE');
        assert.deepEqual(v3.shown, JSON.parse(v3.rawBody));
        assert.equal((v3.shown as { country?: unknown }).country, 'DE', 'the V3 shape');
        assert.equal(v3.kept.request_body, null, 'a V3 body is the payload: not kept twice');
      });

      test("another organisation's eSIM cannot be driven from the console (404, nothing used)", async () => {
        const session = await signInHttp(portal.baseUrl, 'Admin');
        const res = await session.post('/portal/simulator/esim', {
          iccid: otherIccid,
          action: 'install',
          status: 'Installed',
        });
        assert.equal(res.status, 404);
        assert.match(await res.text(), new RegExp(`eSIM ${otherIccid} not found`));
        const other = { baseUrl: portal.baseUrl, apiKey: portal.otherOrganisationApiKey };
        const esim = await api(other, 'GET', `/v2.1/esims/${otherIccid}`);
        assert.equal((esim.json as { profileStatus: string }).profileStatus, 'Released');
      });

      test('a Viewer reads the console but may not act on it', async () => {
        const session = await signInHttp(portal.baseUrl, 'Viewer');
        const page = await (await session.get('/portal/simulator')).text();
        assert.doesNotMatch(page, /Advance the clock/);
        const res = await session.post('/portal/simulator/clock', { amount: '1', unit: 'days' });
        assert.equal(res.status, 403);
      });

      test("a fault set in the console answers the API, and the journal lists only the organisation's own calls", async () => {
        const session = await signInHttp(portal.baseUrl, 'Admin');
        const added = await session.post('/portal/simulator/faults', {
          route: '/v2.1/organisation',
          method: 'GET',
          status: '503',
          count: '1',
        });
        assert.equal(added.status, 303);
        const caller = { baseUrl: portal.baseUrl, apiKey: portal.organisationApiKey };
        assert.equal((await api(caller, 'GET', '/v2.1/organisation')).status, 503);
        assert.equal((await api(caller, 'GET', '/v2.1/organisation')).status, 200);
        const other = { baseUrl: portal.baseUrl, apiKey: portal.otherOrganisationApiKey };
        assert.equal((await api(other, 'GET', '/v2.1/inventory?api_key=x')).status, 200);

        // The journal is written once the answer is out: read until the newest call is there.
        let journal = '';
        for (let i = 0; i < 100 && !journal.includes('/v2.1/organisation'); i += 1) {
          journal = await (await session.get('/portal/simulator/requests')).text();
        }
        assert.match(
          journal,
          /<td>GET<\/td>\s*<td class="details"><code>\/v2.1\/organisation<\/code>/,
        );
        assert.match(journal, /<code>\/v2.1\/orders<\/code>/);
        assert.doesNotMatch(
          journal,
          /\/v2.1\/inventory/,
          "the other organisation's call is not shown",
        );
        const otherSession = await signInHttp(portal.baseUrl, 'Admin', 'other');
        let theirs = '';
        for (let i = 0; i < 100 && !theirs.includes('/v2.1/inventory'); i += 1) {
          theirs = await (await otherSession.get('/portal/simulator/requests')).text();
        }
        assert.match(theirs, /<code>\/v2.1\/inventory<\/code>/);
        assert.doesNotMatch(theirs, /api_key/, 'the query is left out');
        assert.doesNotMatch(theirs, /\/v2.1\/organisation</);
      });

      test("the outbox page shows the organisation's own mail only", async () => {
        const session = await signInHttp(portal.baseUrl, 'Admin');
        await portal.deps.mailer.send({
          to: 'admin@main.portal.test',
          subject: 'Ours',
          text: 'hello',
        });
        await portal.deps.mailer.send({
          to: 'admin@other.portal.test',
          subject: 'Theirs',
          text: 'x',
        });
        const page = await (await session.get('/portal/simulator/outbox')).text();
        assert.match(page, /Ours/);
        assert.doesNotMatch(page, /Theirs/);
      });
    });

    // Whether the console's routes and banner exist is decided by the mode when the app is built,
    // before any database is read: on SQLite only.
    if (kind === 'sqlite') {
      describe(`portal simulator console in production (${kind})`, { concurrency: 1 }, () => {
        let portal: PortalServer;
        before(async () => {
          portal = await startPortal(kind, { config: { mode: 'production' } });
        });
        after(() => portal.close());

        test('the console does not exist and no page shows a simulator banner', async () => {
          const session = await signInHttp(portal.baseUrl, 'Admin');
          for (const path of [
            '/portal/simulator',
            '/portal/simulator/requests',
            '/portal/simulator/outbox',
          ]) {
            const res = await session.get(path);
            assert.equal(res.status, 404, path);
            assert.doesNotMatch(await res.text(), /sim-banner/);
          }
          // A form posted to it too: the portal's page that says there is no such page.
          const posted = await session.post('/portal/simulator/clock', {
            amount: '1',
            unit: 'days',
          });
          assert.equal(posted.status, 404);
          assert.match(posted.headers.get('content-type') ?? '', /^text\/html/);
          assert.match(await posted.text(), /There is no such page in the portal\./);
          assert.doesNotMatch(await (await session.get('/portal')).text(), /sim-banner|Simulator/);
        });
      });
    }
  }
});
