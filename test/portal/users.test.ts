import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserOnly } from './browser.js';
import type { PortalServer } from './portal-harness.js';
import { DATABASES, ROLES, emailFor, signIn, signInHttp } from './portal-harness.js';
import { closePortal, openPortal, portalPage } from './portal-suite.js';

// The Users page: Admins add users (with a one-time link), change roles and remove users; the
// last Admin stays; every other role sees the list and nothing more.

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('portal Users page, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    describe(`portal Users page (${kind})`, { concurrency: 1 }, () => {
      let portal: PortalServer;
      let browser: Browser | undefined;
      before(async () => ({ portal, browser } = await openPortal(kind)));
      after(() => closePortal(portal));

      test(
        'an Admin adds a user, who sets a password through the one-time link and signs in',
        browserOnly,
        async () => {
          if (browser === undefined) return;
          const page = await portalPage(portal);
          await signIn(page, 'Admin');
          await page.getByRole('link', { name: 'Users' }).click();
          await page.getByLabel('First name').fill('Ada');
          await page.getByLabel('Last name').fill('Lovelace');
          await page.getByLabel('Email').fill('ada@main.portal.test');
          await page.getByLabel('Role', { exact: true }).selectOption('Finance');
          await page.getByRole('button', { name: 'Add user' }).click();
          const flash = await page.getByRole('status').innerText();
          assert.match(flash, /Added Ada Lovelace as Finance/);
          const link = /http:\/\/127\.0\.0\.1:\d+(\/portal\/set-password\?token=[\w-]+)/.exec(
            flash,
          )?.[1];
          assert.ok(link !== undefined, flash);
          assert.match(await page.locator('table').innerText(), /ada@main\.portal\.test/);

          // The new user, in the same browser signed out (the Admin's page is done).
          const fresh = await portalPage(portal);
          await fresh.goto(link);
          await fresh.getByLabel('New password', { exact: true }).fill('short');
          await fresh.getByLabel('Repeat the new password').fill('short');
          await fresh.getByRole('button', { name: 'Set password' }).click();
          assert.match(await fresh.getByRole('alert').innerText(), /at least 12 characters/);
          await fresh.getByLabel('New password', { exact: true }).fill('analytical engine');
          await fresh.getByLabel('Repeat the new password').fill('analytical engine');
          await fresh.getByRole('button', { name: 'Set password' }).click();
          await fresh.waitForURL((url) => url.pathname === '/portal/sign-in');
          assert.match(await fresh.getByRole('status').innerText(), /Your password is set/);
          await fresh.getByLabel('Email').fill('ada@main.portal.test');
          await fresh.getByLabel('Password').fill('analytical engine');
          await fresh.getByRole('button', { name: 'Sign in' }).click();
          await fresh.waitForURL((url) => url.pathname === '/portal');
          assert.match(await fresh.locator('header').innerText(), /Ada Lovelace · Finance/);
        },
      );

      test(
        'an Admin sees inline errors on the add form and keeps what was typed',
        browserOnly,
        async () => {
          if (browser === undefined) return;
          const page = await portalPage(portal);
          await signIn(page, 'Admin', { to: '/portal/users' });
          await page.getByLabel('First name').fill('Dup');
          await page.getByLabel('Last name').fill('Licate');
          await page.getByLabel('Email').fill(emailFor('Viewer'));
          await page.getByLabel('Time zone').fill('Mars/Olympus');
          await page.getByRole('button', { name: 'Add user' }).click();
          const timeZone = page.getByLabel('Time zone');
          assert.equal(await timeZone.getAttribute('aria-invalid'), 'true');
          assert.match(
            await page.locator('#field-timeZone-error').innerText(),
            /not an IANA time zone/,
          );
          assert.equal(await page.getByLabel('First name').inputValue(), 'Dup');
          await timeZone.fill('Europe/Paris');
          await page.getByRole('button', { name: 'Add user' }).click();
          assert.match(await page.locator('#field-email-error').innerText(), /already exists/);
        },
      );

      test(
        'an Admin changes a role and removes a user, whose session ends; the last Admin stays',
        browserOnly,
        async () => {
          if (browser === undefined) return;
          const support = await signInHttp(portal.baseUrl, 'Support');
          const page = await portalPage(portal);
          await signIn(page, 'Admin', { to: '/portal/users' });
          const developer = portal.users.Developer;
          await page.getByLabel(`Role of Developer Portal`).selectOption('Viewer');
          await page
            .getByRole('row', { name: new RegExp(developer.email) })
            .getByRole('button', { name: 'Change role' })
            .click();
          assert.match(await page.getByRole('status').innerText(), /is now Viewer/);

          page.once('dialog', (dialog) => void dialog.accept());
          await page
            .getByRole('row', { name: new RegExp(emailFor('Support')) })
            .getByRole('button', { name: 'Remove' })
            .click();
          assert.match(
            await page.getByRole('status').innerText(),
            /Removed support@main\.portal\.test/,
          );
          assert.equal(
            (await support.get('/portal')).status,
            303,
            'the removed user is signed out',
          );

          await page.getByLabel('Role of Admin Portal').selectOption('Viewer');
          await page
            .getByRole('row', { name: new RegExp(emailFor('Admin')) })
            .getByRole('button', { name: 'Change role' })
            .click();
          assert.match(
            await page.getByRole('alert').innerText(),
            /the last Admin of the organisation cannot be given another role/,
          );
          // The only Admin is not offered Remove; a forged removal is still refused (409).
          const onlyAdmin = page.getByRole('row', { name: new RegExp(emailFor('Admin')) });
          assert.equal(await onlyAdmin.getByRole('button', { name: 'Remove' }).count(), 0);
          assert.match(await onlyAdmin.innerText(), /The only Admin/);
          const session = await signInHttp(portal.baseUrl, 'Admin');
          const forged = await session.post(`/portal/users/${portal.users.Admin.id}/remove`);
          assert.equal(forged.status, 409);
          assert.match(await forged.text(), /the last Admin of the organisation cannot be removed/);
          assert.match(await page.locator('header').innerText(), /Admin Portal · Admin/);
        },
      );

      test(
        'every other role sees the users but no add form, role changes or removal',
        browserOnly,
        async () => {
          if (browser === undefined) return;
          for (const role of ROLES.filter((r) => r !== 'Admin' && r !== 'Support')) {
            const http = await signInHttp(portal.baseUrl, role);
            if (kind === 'sqlite') {
              const page = await portalPage(portal);
              await signIn(page, role);
              await page.getByRole('link', { name: 'Users' }).click();
              assert.match(await page.locator('table').innerText(), /admin@main\.portal\.test/);
              assert.equal(await page.getByRole('button', { name: 'Add user' }).count(), 0, role);
              assert.equal(await page.getByRole('button', { name: 'Remove' }).count(), 0, role);
              assert.equal(await page.getByRole('link', { name: 'Activity' }).count(), 0, role);
            } else {
              // The same page as served from PostgreSQL, read in its markup: the browser's view
              // of it does not depend on the database (checked on SQLite).
              const list = await http.get('/portal/users');
              assert.equal(list.status, 200, role);
              const page = await list.text();
              assert.match(page, /admin@main\.portal\.test/, role);
              assert.doesNotMatch(page, />\s*Add user\s*<\/button>/, role);
              assert.doesNotMatch(page, /\/remove"/, role);
              assert.doesNotMatch(page, /href="\/portal\/activity"/, role);
            }
            const add = await http.post('/portal/users', {
              firstName: 'X',
              lastName: 'Y',
              email: `${role}@x.test`,
              role: 'Admin',
            });
            assert.equal(add.status, 403, role);
            const promote = await http.post(`/portal/users/${portal.users[role].id}/role`, {
              role: 'Admin',
            });
            assert.equal(promote.status, 403, `${role} cannot promote themselves`);
          }
        },
      );

      test('two Admins removing each other at once leave one Admin', async () => {
        const admin = await signInHttp(portal.baseUrl, 'Admin');
        const finance = portal.users.Finance;
        assert.equal(
          (await admin.post(`/portal/users/${finance.id}/role`, { role: 'Admin' })).status,
          303,
        );
        const second = await signInHttp(portal.baseUrl, 'Finance');
        const [a, b] = await Promise.all([
          admin.post(`/portal/users/${finance.id}/remove`),
          second.post(`/portal/users/${portal.users.Admin.id}/remove`),
        ]);
        // The loser is refused by the last-Admin rule (409), or, when the winner finished first,
        // finds its own session ended with its removal (401).
        const statuses = [a.status, b.status].sort();
        assert.equal(statuses[0], 303);
        assert.ok(statuses[1] === 401 || statuses[1] === 409, String(statuses[1]));
        const survivor = a.status === 303 ? admin : second;
        const list = await (await survivor.get('/portal/users')).text();
        assert.equal((list.match(/<option selected>Admin<\/option>/g) ?? []).length, 1);
      });
    });
  }
});
