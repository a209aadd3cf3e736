import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { updateOrganisationSettings } from '../../src/domain/organisations/organisation-changes.js';
import { isTestEventIccid } from '../../src/domain/access/api-access.js';
import { listAuditEntries } from '../../src/store/repositories/audit-repository.js';
import { createCallbackWorker } from '../../src/workers/callback-delivery.js';
import { startReceiver } from '../receiver.js';
import type { Receiver } from '../receiver.js';
import { browserOnly } from './browser.js';
import { api } from './money-fixtures.js';
import type { PortalServer } from './portal-harness.js';
import { DATABASES, emailFor, signIn, signInHttp, startPortal } from './portal-harness.js';
import { closePortal, openPortal, portalPage } from './portal-suite.js';

// API & callbacks: the key masked, revealed on confirmation and rotated with a grace period;
// the callback settings under the organisation's rules; a test event through the real delivery
// path; the delivery log with every attempt, and resend. Only Admin may reveal or rotate the key
// (it carries every API power); Developer and Admin may configure callbacks; Finance, Support and
// Viewer only read.

async function auditRows(portal: PortalServer, action: string) {
  const rows = await listAuditEntries(portal.deps.store.db, {
    organisationId: portal.organisationId,
    limit: 100,
  });
  return rows.filter((r) => r.action === action);
}

async function drain(portal: PortalServer): Promise<void> {
  await createCallbackWorker(portal.deps, { warn: () => undefined }).drain();
}

async function statusCode(page: Page, path: string, act: () => Promise<void>): Promise<number> {
  const response = page.waitForResponse((r) => new URL(r.url()).pathname === path);
  await act();
  return (await response).status();
}

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('portal API & callbacks, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    describe(`portal API & callbacks (${kind})`, { concurrency: 1 }, () => {
      let portal: PortalServer;
      let receiver: Receiver;
      let browser: Browser | undefined;
      before(async () => {
        ({ portal, browser } = await openPortal(kind));
        receiver = await startReceiver({
          behaviours: { '/broken': { status: 500, body: 'receiver broke' } },
        });
      });
      after(async () => {
        await receiver.close();
        await closePortal(portal);
      });

      test(
        'Admin sees the key masked and reveals it only after confirming, audited',
        browserOnly,
        async () => {
          if (browser === undefined) return;
          const page = await portalPage(portal, {
            width: 390,
            height: 844,
          });
          await signIn(page, 'Admin', { to: '/portal/api' });
          const key = portal.organisationApiKey;
          assert.equal(
            await page.getByTestId('masked-key').textContent(),
            `esim_${'•'.repeat(12)}${key.slice(-4)}`,
          );
          assert.ok(!(await page.content()).includes(key));
          const refused = await statusCode(page, '/portal/api/key/reveal', () =>
            page.getByRole('button', { name: 'Reveal key' }).click(),
          );
          assert.equal(refused, 400);
          assert.match(await page.locator('#field-confirm-error').innerText(), /tick the box/);
          assert.equal(await auditRows(portal, 'api_key.revealed').then((r) => r.length), 0);
          await page.getByLabel(/Show the whole key/).check();
          await page.getByRole('button', { name: 'Reveal key' }).click();
          assert.equal(await page.getByTestId('api-key').textContent(), key);
          // Usable at phone width: the whole key wraps instead of widening the page.
          const overflow = Number(
            await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'),
          );
          assert.ok(overflow <= 0, `the page is ${overflow}px wider than a phone`);
          const rows = await auditRows(portal, 'api_key.revealed');
          assert.equal(rows.length, 1);
          assert.equal(rows[0]?.actor, `user:${emailFor('Admin')}`);
          assert.equal(rows[0]?.source, '127.0.0.1');
        },
      );

      test(
        'Admin rotates the key with a grace period; the new key is shown once and works',
        browserOnly,
        async () => {
          if (browser === undefined) return;
          const page = await portalPage(portal);
          await signIn(page, 'Admin', { to: '/portal/api' });
          const old = (await api(portal, '/organisation')).body as {
            organisations: { apiKey: string }[];
          };
          const oldKey = old.organisations[0]?.apiKey ?? '';
          await page.getByLabel('Why are you rotating the key?').selectOption('routine');
          await page
            .getByLabel('The old key keeps working for')
            .selectOption({ label: '24 hours' });
          await page.getByLabel('Replace the API key now').check();
          await page.getByRole('button', { name: 'Rotate key' }).click();
          const newKey = (await page.getByTestId('api-key').textContent()) ?? '';
          assert.match(newKey, /^esim_/);
          assert.notEqual(newKey, oldKey);
          assert.match(
            await page.locator('.reveal').innerText(),
            /Copy it now[\s\S]*previous key works until/,
          );
          assert.equal((await api(portal, '/organisation', { apiKey: newKey })).status, 200);
          assert.equal((await api(portal, '/organisation', { apiKey: oldKey })).status, 200);
          await page.goto('/portal/api');
          assert.ok(!(await page.content()).includes(newKey));
          assert.equal(
            await page.getByTestId('masked-key').textContent(),
            `esim_${'•'.repeat(12)}${newKey.slice(-4)}`,
          );

          // No grace: every earlier key stops at once.
          await page.getByLabel('Why are you rotating the key?').selectOption('leak');
          await page.getByLabel('The old key keeps working for').selectOption('default');
          await page.getByLabel('Replace the API key now').check();
          await page.getByRole('button', { name: 'Rotate key' }).click();
          const newest = (await page.getByTestId('api-key').textContent()) ?? '';
          assert.equal((await api(portal, '/organisation', { apiKey: newKey })).status, 403);
          assert.equal((await api(portal, '/organisation', { apiKey: oldKey })).status, 403);
          assert.equal((await api(portal, '/organisation', { apiKey: newest })).status, 200);
          const rotated = await auditRows(portal, 'api_key.rotated');
          assert.equal(rotated.length, 2);
          assert.equal(rotated[0]?.actor, `user:${emailFor('Admin')}`);
        },
      );

      test(
        'Developer sets the callback URL and V3, sends a test event and reads every attempt',
        browserOnly,
        async () => {
          if (browser === undefined) return;
          const page = await portalPage(portal);
          await signIn(page, 'Developer', { to: '/portal/api' });
          await page.getByLabel('Callback URL').fill(`${receiver.url}/broken`);
          await page.getByLabel(/^V3/).check();
          await page.getByRole('button', { name: 'Save callback settings' }).click();
          assert.match(
            await page.getByRole('status').innerText(),
            /Callback settings saved: .*\/broken, version V3\./,
          );
          const settings = await auditRows(portal, 'callback.settings_changed');
          assert.equal(settings[0]?.actor, `user:${emailFor('Developer')}`);

          await page.getByRole('button', { name: 'Send a test event' }).click();
          assert.match(await page.getByRole('status').innerText(), /Test event queued/);
          await drain(portal);
          assert.equal(receiver.at('/broken').length, 1);
          const sent = receiver.at('/broken')[0];
          const body = JSON.parse(sent?.rawBody ?? '{}') as { iccid: string };
          assert.ok(isTestEventIccid(body.iccid), body.iccid);
          assert.deepEqual(body, {
            iccid: body.iccid,
            alertType: 'FirstAttachment',
            country: 'GB',
          });
          assert.ok(typeof sent?.headers['x-signature-sha256'] === 'string');

          await page.reload();
          const row = page.getByTestId('deliveries').locator('tbody tr').first();
          assert.match(
            await row.innerText(),
            new RegExp(`FirstAttachment \\(test\\)\\s+${body.iccid}\\s+pending\\s+1\\s+500`),
          );
          await row.getByRole('link', { name: /Attempts/ }).click();
          const attempt = page.getByTestId('attempts').locator('tbody tr').first();
          assert.match(
            await attempt.innerText(),
            /^1\s[\s\S]*500[\s\S]*\d+ ms[\s\S]*receiver broke/,
          );
        },
      );

      test('a delivered callback is resent from its page, audited', browserOnly, async () => {
        if (browser === undefined) return;
        const page = await portalPage(portal);
        await signIn(page, 'Admin', { to: '/portal/api' });
        await page.getByLabel('Callback URL').fill(`${receiver.url}/ok`);
        await page.getByRole('button', { name: 'Save callback settings' }).click();
        await page.getByRole('button', { name: 'Send a test event' }).click();
        await drain(portal);
        await page.reload();
        const row = page.getByTestId('deliveries').locator('tbody tr').first();
        assert.match(await row.innerText(), /delivered/);
        await row.getByRole('link', { name: /Attempts/ }).click();
        assert.equal(await page.getByTestId('delivery-status').textContent(), 'delivered');
        // This delivery's requests only: the previous test's delivery to /broken is retried at the
        // callback URL of the moment, /ok, once its retry falls due (on a slow machine, meanwhile).
        const id = new URL(page.url()).pathname.split('/').pop() ?? '';
        const sentOf = () => receiver.at('/ok').filter((r) => r.headers['x-event-id'] === id);
        assert.equal(sentOf().length, 1);
        await page.getByRole('button', { name: /Resend delivery/ }).click();
        assert.match(await page.getByRole('status').innerText(), /Delivery queued again/);
        assert.equal(await page.getByTestId('delivery-status').textContent(), 'pending');
        await drain(portal);
        assert.equal(sentOf().length, 2);
        await page.reload();
        assert.equal(await page.getByTestId('attempts').locator('tbody tr').count(), 2);
        assert.equal((await auditRows(portal, 'callback.resent')).length, 1);
        assert.equal((await auditRows(portal, 'callback.test_sent')).length, 2);
      });

      test('a V2 test event is the reduced shape of an eSIM with no bundle: iccid and alertType, unsigned', async () => {
        // The other organisation, so the main one's deliveries and audit rows stay as counted.
        const session = await signInHttp(portal.baseUrl, 'Admin', 'other');
        const saved = await session.post('/portal/api/callback', {
          callbackUrl: `${receiver.url}/v2-test`,
          callbackVersion: 'V2',
        });
        assert.equal(saved.status, 303);
        assert.equal((await session.post('/portal/api/test-event')).status, 303);
        await drain(portal);
        const [sent] = receiver.at('/v2-test');
        const body = JSON.parse(sent?.rawBody ?? '{}') as { iccid: string };
        assert.ok(isTestEventIccid(body.iccid), body.iccid);
        assert.deepEqual(body, { iccid: body.iccid, alertType: 'FirstAttachment' });
        assert.equal(sent?.headers['x-signature-sha256'], undefined);
      });

      test('a callback URL the organisation rules refuse is refused inline with their message', async () => {
        const session = await signInHttp(portal.baseUrl, 'Developer');
        for (const url of ['ftp://callbacks.example.com/hook', 'not a url']) {
          const expected = await updateOrganisationSettings(
            { ...portal.deps, db: portal.deps.store.db },
            portal.otherOrganisationId,
            { callbackUrl: url },
            portal.deps.checkCallbackUrl,
          ).then(
            () => 'accepted',
            (error: Error) => error.message,
          );
          const res = await session.post('/portal/api/callback', {
            callbackUrl: url,
            callbackVersion: 'V2',
          });
          assert.equal(res.status, 400);
          const inline = /id="field-callbackUrl-error" role="alert">([^<]*)</.exec(
            await res.text(),
          )?.[1];
          assert.equal(inline?.replace(/&quot;/g, '"'), expected);
        }
      });

      for (const role of ['Viewer', 'Finance', 'Support'] as const) {
        test(`${role} reads the page but cannot reveal, rotate, configure, test or resend`, async () => {
          const session = await signInHttp(portal.baseUrl, role);
          const page = await (await session.get('/portal/api')).text();
          assert.doesNotMatch(page, /action="\/portal\/api\/(key|callback|test-event)/);
          for (const [path, fields] of [
            ['/portal/api/key/reveal', { confirm: 'yes' }],
            ['/portal/api/key/rotate', { confirmRotate: 'yes', grace: '0' }],
            [
              '/portal/api/callback',
              { callbackUrl: 'https://example.com/x', callbackVersion: 'V2' },
            ],
            ['/portal/api/test-event', {}],
            ['/portal/api/deliveries/any/resend', {}],
          ] as const) {
            const res = await session.post(path, fields);
            assert.equal(res.status, 403, `${role} ${path}`);
          }
        });
      }

      test('another organisation’s delivery is not found, to read or to resend', async () => {
        const other = await signInHttp(portal.baseUrl, 'Admin', 'other');
        const mine = await signInHttp(portal.baseUrl, 'Admin');
        const page = await (await mine.get('/portal/api')).text();
        const id = /href="\/portal\/api\/deliveries\/([0-9a-f-]+)"/.exec(page)?.[1];
        assert.ok(id !== undefined, 'the main organisation has a delivery');
        assert.equal((await mine.get(`/portal/api/deliveries/${id}`)).status, 200);
        assert.equal((await other.get(`/portal/api/deliveries/${id}`)).status, 404);
        assert.equal((await other.post(`/portal/api/deliveries/${id}/resend`)).status, 404);
      });
    });

    // Production mode's refusal is made before the database is read or written (the check of the
    // URL, then the form's answer), the same code on either database: on SQLite only.
    if (kind === 'sqlite') {
      describe(`portal API & callbacks in production mode (${kind})`, { concurrency: 1 }, () => {
        let portal: PortalServer;
        before(async () => {
          portal = await startPortal(kind, { config: { mode: 'production' } });
        });
        after(async () => {
          await portal.close();
        });

        test('a callback URL the service refuses (SSRF guard) is refused by the portal with the same message', async () => {
          const session = await signInHttp(portal.baseUrl, 'Developer');
          for (const url of [
            'https://10.1.2.3/hook',
            'http://callbacks.example.com/hook',
            'https://169.254.169.254/x',
          ]) {
            const expected = await updateOrganisationSettings(
              { ...portal.deps, db: portal.deps.store.db },
              portal.otherOrganisationId,
              { callbackUrl: url },
              portal.deps.checkCallbackUrl,
            ).then(
              () => 'accepted',
              (error: Error) => error.message,
            );
            assert.match(expected, /^callbackUrl (is refused|must be an https URL)/);
            const res = await session.post('/portal/api/callback', {
              callbackUrl: url,
              callbackVersion: 'V3',
            });
            assert.equal(res.status, 400, url);
            const inline = /id="field-callbackUrl-error" role="alert">([^<]*)</.exec(
              await res.text(),
            )?.[1];
            assert.equal(inline?.replace(/&#39;/g, "'").replace(/&quot;/g, '"'), expected);
          }
          const org = (await api(portal, '/organisation')).body as {
            organisations: { callbackUrl: string }[];
          };
          assert.equal(org.organisations[0]?.callbackUrl, '');
        });
      });
    }
  }
});
