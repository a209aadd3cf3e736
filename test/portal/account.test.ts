import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserOnly } from './browser.js';
import type { PortalServer } from './portal-harness.js';
import { DATABASES, PORTAL_PASSWORD, emailFor, signIn, signInHttp } from './portal-harness.js';
import { closePortal, openPortal, portalPage } from './portal-suite.js';

// Your account: a password change needs the current password and signs the user out
// everywhere.

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('portal account page, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    describe(`portal account page (${kind})`, { concurrency: 1 }, () => {
      let portal: PortalServer;
      let browser: Browser | undefined;
      before(async () => ({ portal, browser } = await openPortal(kind)));
      after(() => closePortal(portal));

      test(
        'changing the password checks the current one and ends every session',
        browserOnly,
        async () => {
          if (browser === undefined) return;
          const elsewhere = await signInHttp(portal.baseUrl, 'Developer');
          const page = await portalPage(portal);
          await signIn(page, 'Developer');
          await page.getByRole('link', { name: 'Your account' }).click();
          assert.match(await page.locator('main').innerText(), /developer@main\.portal\.test/);
          await page.getByLabel('Current password').fill('not my password');
          await page.getByLabel('New password', { exact: true }).fill('my new developer password');
          await page.getByLabel('Repeat the new password').fill('my new developer password');
          await page.getByRole('button', { name: 'Change password' }).click();
          assert.match(
            await page.getByRole('alert').innerText(),
            /current password is not correct/,
          );
          assert.equal(
            await page.getByLabel('Current password').getAttribute('aria-invalid'),
            'true',
          );
          await page.getByLabel('Current password').fill(PORTAL_PASSWORD);
          await page.getByLabel('New password', { exact: true }).fill('my new developer password');
          await page.getByLabel('Repeat the new password').fill('my new developer password');
          await page.getByRole('button', { name: 'Change password' }).click();
          await page.waitForURL((url) => url.pathname === '/portal/sign-in');
          assert.match(await page.getByRole('status').innerText(), /signed out everywhere/);
          assert.equal((await elsewhere.get('/portal')).status, 303, 'the other session ended');
          await page.getByLabel('Email').fill(emailFor('Developer'));
          await page.getByLabel('Password').fill('my new developer password');
          await page.getByRole('button', { name: 'Sign in' }).click();
          await page.waitForURL((url) => url.pathname === '/portal');
        },
      );

      test('a password change without the CSRF token is refused', async () => {
        const viewer = await signInHttp(portal.baseUrl, 'Viewer');
        const fields = {
          current: PORTAL_PASSWORD,
          password: 'hijacked password',
          confirm: 'hijacked password',
        };
        const response = await viewer.post('/portal/account/password', fields, { csrf: false });
        assert.equal(response.status, 403);
        assert.equal((await viewer.get('/portal')).status, 200);
      });
    });
  }
});
