import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserOnly } from './browser.js';
import type { PortalServer } from './portal-harness.js';
import { DATABASES, ROLES, emailFor, signIn, signInHttp } from './portal-harness.js';
import { closePortal, openPortal, portalPage } from './portal-suite.js';

// The Activity page: the organisation's sensitive actions with who, when and from where, for
// Admins only, 50 a page.

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('portal Activity page, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    describe(`portal Activity page (${kind})`, { concurrency: 1 }, () => {
      let portal: PortalServer;
      let browser: Browser | undefined;
      before(async () => ({ portal, browser } = await openPortal(kind)));
      after(() => closePortal(portal));

      test(
        'an Admin sees sign-ins, failed sign-ins and user changes with who and from where',
        browserOnly,
        async () => {
          if (browser === undefined) return;
          const wrong = await portalPage(portal);
          await wrong.goto('/portal/sign-in');
          await wrong.getByLabel('Email').fill(emailFor('Viewer'));
          await wrong.getByLabel('Password').fill('not the right one');
          await wrong.getByRole('button', { name: 'Sign in' }).click();
          await wrong.getByRole('alert').waitFor();
          const admin = await signInHttp(portal.baseUrl, 'Admin');
          await admin.post(`/portal/users/${portal.users.Viewer.id}/role`, { role: 'Support' });
          const callbackUrl = 'http://127.0.0.1:9/activity-hook';
          const saved = await admin.post('/portal/api/callback', {
            callbackUrl,
            callbackVersion: 'V3',
          });
          assert.equal(saved.status, 303);

          const page = await portalPage(portal);
          await signIn(page, 'Admin');
          await page.getByRole('link', { name: 'Activity' }).click();
          const table = await page.locator('table').innerText();
          assert.match(table, /Signed in\s+admin@main\.portal\.test\s+127\.0\.0\.1/);
          assert.match(
            table,
            /Failed sign-in\s+viewer@main\.portal\.test\s+127\.0\.0\.1\s+wrong password(?:\n|$)/,
          );
          // Details in words, not the JSON they are stored as.
          assert.match(
            table,
            /Role changed\s+admin@main\.portal\.test\s+127\.0\.0\.1\s+viewer@main\.portal\.test: Viewer to Support(?:\n|$)/,
          );
          assert.match(
            table,
            /Organisation updated\s+.*changed: callback URL, callback version(?:\n|$)/,
          );
          assert.ok(
            table.includes(
              `Callback settings changed\tadmin@main.portal.test\t127.0.0.1\t${callbackUrl}, version V3`,
            ),
            table,
          );
          assert.doesNotMatch(table, /[[{]"|_url|: \[/, 'no JSON, no stored field names');
          assert.match(table, /User added/);
          assert.match(table, /(GMT|BST)/, "dates in the user's time zone (Europe/London)");
          assert.doesNotMatch(table, /other\.portal\.test/, "no other organisation's rows");
        },
      );

      test('pages of 50, newest first, with a link to older activity', async () => {
        const admin = await signInHttp(portal.baseUrl, 'Admin');
        for (let i = 0; i < 52; i += 1) {
          const role = i % 2 === 0 ? 'Finance' : 'Developer';
          await admin.post(`/portal/users/${portal.users.Developer.id}/role`, { role });
        }
        const first = await (await admin.get('/portal/activity')).text();
        assert.equal((first.match(/<tr>\s*<td>/g) ?? []).length, 50);
        const older = /href="(\/portal\/activity\?before=\d+)"/.exec(first)?.[1];
        assert.ok(older !== undefined);
        const second = await (await admin.get(older)).text();
        assert.ok((second.match(/<tr>\s*<td>/g) ?? []).length > 0);
        assert.match(second, /Newest activity/);
        assert.equal(
          (await admin.get('/portal/activity?before=abc')).status,
          200,
          'a bad cursor shows the newest',
        );
      });

      test('no role but Admin may open it', async () => {
        for (const role of ROLES.filter((r) => r !== 'Admin')) {
          const session = await signInHttp(portal.baseUrl, role);
          const response = await session.get('/portal/activity');
          assert.equal(response.status, 403, role);
          assert.match(await response.text(), /does not allow this/);
        }
      });
    });
  }
});
