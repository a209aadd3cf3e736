import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestFn, TestOptions } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserOnly } from './browser.js';
import type { PortalServer } from './portal-harness.js';
import {
  DATABASES,
  PORTAL_PASSWORD,
  cookiesOf,
  emailFor,
  signInWithForm,
  signInHttp,
} from './portal-harness.js';
import { closePortal, openPortal, portalPage } from './portal-suite.js';

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('portal sign-in, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    describe(`portal sign-in (${kind})`, { concurrency: 1 }, () => {
      // What the browser does with the pages (focus order, layout at phone width) is the same
      // whatever database the server reads: checked on SQLite only; the sign-in itself on each.
      const pagesTest = (name: string, options: TestOptions, fn: TestFn): void => {
        if (kind === 'sqlite') void test(name, options, fn);
      };
      let portal: PortalServer;
      let browser: Browser | undefined;
      before(async () => ({ portal, browser } = await openPortal(kind)));
      after(() => closePortal(portal));

      test(
        'a user signs in with Email and Password, sees the Overview and signs out',
        browserOnly,
        async () => {
          if (browser === undefined) return;
          const page = await portalPage(portal);
          await signInWithForm(page, 'Finance');
          assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Overview');
          assert.match(await page.locator('header').innerText(), /Portal Organisation/);
          assert.match(await page.locator('main').innerText(), /\$1,000\.00/);
          await page.getByRole('button', { name: 'Sign out' }).click();
          await page.waitForURL((url) => url.pathname === '/portal/sign-in');
          await page.goto('/portal/users');
          assert.equal(new URL(page.url()).pathname, '/portal/sign-in');
        },
      );

      test(
        'a wrong password is refused with a message that names neither field',
        browserOnly,
        async () => {
          if (browser === undefined) return;
          const page = await portalPage(portal);
          await page.goto('/portal');
          await page.getByLabel('Email').fill(emailFor('Admin'));
          await page.getByLabel('Password').fill('not the password at all');
          await page.getByRole('button', { name: 'Sign in' }).click();
          await page.getByRole('alert').waitFor();
          assert.match(
            await page.getByRole('alert').innerText(),
            /email address or password is not correct/,
          );
          assert.equal(new URL(page.url()).pathname, '/portal/sign-in');
        },
      );

      test('the session cookie is HttpOnly and SameSite=Lax, and every portal answer is no-store', async () => {
        const form = await fetch(`${portal.baseUrl}/portal/sign-in`);
        const pre = cookiesOf(form);
        const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
        const response = await fetch(`${portal.baseUrl}/portal/sign-in`, {
          method: 'POST',
          headers: {
            cookie: `esim_csrf=${pre['esim_csrf'] ?? ''}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({
            _csrf: csrf,
            email: emailFor('Viewer'),
            password: PORTAL_PASSWORD,
          }).toString(),
          redirect: 'manual',
        });
        assert.equal(response.status, 303);
        const line = response.headers.getSetCookie().find((l) => l.startsWith('esim_session='));
        assert.ok(line !== undefined);
        assert.match(line, /HttpOnly/);
        assert.match(line, /SameSite=Lax/);
        assert.match(line, /Path=\/portal/);
        assert.doesNotMatch(
          line,
          /Secure/,
          'not Secure in simulator mode, where the portal is plain HTTP',
        );
        assert.equal(response.headers.get('cache-control'), 'no-store');
      });

      pagesTest('sign-in works from the keyboard alone', browserOnly, async () => {
        if (browser === undefined) return;
        const page = await portalPage(portal);
        await page.goto('/portal/sign-in');
        await page.keyboard.press('Tab');
        assert.equal(
          await page.evaluate('document.activeElement && document.activeElement.textContent'),
          'Skip to content',
        );
        await page.keyboard.press('Tab');
        assert.equal(
          await page.evaluate(
            "document.activeElement && document.activeElement.getAttribute('name')",
          ),
          'email',
        );
        await page.keyboard.type(emailFor('Developer'));
        await page.keyboard.press('Tab');
        await page.keyboard.type(PORTAL_PASSWORD);
        await page.keyboard.press('Enter');
        await page.waitForURL((url) => url.pathname === '/portal');
      });

      pagesTest(
        'at phone width the sign-in, Users and Activity pages do not scroll sideways',
        browserOnly,
        async () => {
          if (browser === undefined) return;
          const page = await portalPage(portal, {
            width: 360,
            height: 740,
          });
          const overflow = () =>
            page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
          await page.goto('/portal/sign-in');
          assert.ok((await overflow()) <= 0, 'sign-in');
          await signInWithForm(page, 'Admin');
          for (const path of ['/portal', '/portal/users', '/portal/activity', '/portal/account']) {
            await page.goto(path);
            assert.ok((await overflow()) <= 0, path);
          }
        },
      );

      test('signInHttp gives a working session over raw HTTP', async () => {
        const session = await signInHttp(portal.baseUrl, 'Support');
        const page = await session.get('/portal');
        assert.equal(page.status, 200);
        assert.match(await page.text(), /Support Portal · Support/);
      });
    });
  }
});
