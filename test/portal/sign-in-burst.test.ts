import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listAuditEntries } from '../../src/store/repositories/audit-repository.js';
import { listMail } from '../../src/store/repositories/portal-repository.js';
import { ManualWallClock } from '../manual-wall-clock.js';
import type { PortalServer } from './portal-harness.js';
import {
  DATABASES,
  PORTAL_PASSWORD,
  cookiesOf,
  csrfIn,
  emailFor,
  signInHttp,
  startPortal,
} from './portal-harness.js';

// Sign-in and account protection under concurrency: attempts are counted before passwords are
// checked, so a 200-way burst checks no more than the limit (20) and the right password is then
// refused too; refusals of a locked account are summed up in the audit log, not written one row
// each; "Forgot your password?" and the current-password check are limited; a new link ends the
// older ones.

async function preSession(baseUrl: string) {
  const page = await fetch(`${baseUrl}/portal/sign-in`, { redirect: 'manual' });
  return {
    cookie: `esim_csrf=${cookiesOf(page)['esim_csrf'] ?? ''}`,
    csrf: csrfIn(await page.text()),
  };
}

async function postPublic(
  baseUrl: string,
  path: string,
  session: { cookie: string; csrf: string },
  fields: Record<string, string>,
) {
  const response = await fetch(baseUrl + path, {
    method: 'POST',
    headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: session.csrf, ...fields }).toString(),
    redirect: 'manual',
  });
  return { status: response.status, text: await response.text() };
}

async function signInRows(portal: PortalServer, email: string) {
  const rows = await listAuditEntries(portal.deps.store.db, {
    organisationId: portal.organisationId,
    limit: 10_000,
  });
  return rows
    .filter((r) => r.action === 'portal.sign_in_failed' && r.actor === `user:${email}`)
    .map((r) => JSON.parse(r.details ?? '{}') as { reason: string; refusedDuringLock?: number });
}

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('sign-in under concurrency, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    describe(`sign-in under concurrency (${kind})`, { concurrency: 1 }, () => {
      let portal: PortalServer;
      const wallClock = new ManualWallClock();
      before(async () => {
        portal = await startPortal(kind, { wallClock });
      });
      after(() => portal.close());

      test('a 200-way burst of wrong passwords checks at most 20, then the right one is refused', async () => {
        const email = emailFor('Finance');
        const session = await preSession(portal.baseUrl);
        const burst = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            postPublic(portal.baseUrl, '/portal/sign-in', session, {
              email,
              password: `wrong password ${i}`,
            }),
          ),
        );
        const statuses = new Set(burst.map((r) => r.status));
        assert.ok(
          [...statuses].every((s) => s === 401 || s === 503),
          [...statuses].join(),
        );
        const rows = await signInRows(portal, email);
        const checked = rows.filter((r) => r.reason.startsWith('wrong password'));
        assert.ok(checked.length <= 20, `${checked.length} passwords checked`);
        // Refusals of the locked account: one row for the lock, not one per refusal.
        const locked = rows.filter((r) => r.reason === 'locked');
        assert.ok(locked.length <= 2, `${locked.length} rows for refusals`);

        const right = await postPublic(portal.baseUrl, '/portal/sign-in', session, {
          email,
          password: PORTAL_PASSWORD,
        });
        assert.equal(right.status, 401, 'the right password waits for the lock to end');
        assert.match(right.text, /Too many failed sign-ins/);

        // Once the lock is over, the next sign-in works and the refusals are summed up.
        wallClock.advance(15 * 60_000 + 1000);
        const after = await postPublic(portal.baseUrl, '/portal/sign-in', session, {
          email,
          password: PORTAL_PASSWORD,
        });
        assert.equal(after.status, 303);
        const summary = (await signInRows(portal, email)).find(
          (r) => r.refusedDuringLock !== undefined,
        );
        assert.ok(summary !== undefined, 'a summary row');
        assert.ok((summary.refusedDuringLock ?? 0) >= 150, String(summary.refusedDuringLock));
      });

      test('"Forgot your password?" sends at most 3 mails an hour, and a new link ends the older ones', async () => {
        const email = emailFor('Viewer');
        const session = await preSession(portal.baseUrl);
        const answers = await Promise.all(
          Array.from({ length: 30 }, () =>
            postPublic(portal.baseUrl, '/portal/forgot-password', session, { email }),
          ),
        );
        // Every answer is the same, so none tells whether a mail went.
        assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([200]));
        const mails = await listMail(portal.deps.store.db, { to: email, limit: 100 });
        assert.equal(mails.length, 3);
        const links = mails.map((m) => /(http:\/\/\S+set-password\?token=\S+)/.exec(m.body)?.[1]);
        const live: string[] = [];
        for (const link of links) {
          assert.ok(link !== undefined);
          const page = await fetch(link.replace(/^http:\/\/127\.0\.0\.1:\d+/, portal.baseUrl));
          if (!/This link is not valid any more/.test(await page.text())) live.push(link);
        }
        assert.equal(live.length, 1, 'only the newest link works');
        wallClock.advance(3_600_000 + 1000);
        await postPublic(portal.baseUrl, '/portal/forgot-password', session, { email });
        assert.equal((await listMail(portal.deps.store.db, { to: email, limit: 100 })).length, 4);
      });

      test('the current-password check of the account page is limited like a sign-in', async () => {
        const user = await signInHttp(portal.baseUrl, 'Admin');
        const answers: string[] = [];
        for (let i = 0; i < 30; i += 1) {
          const page = await user.post('/portal/account/password', {
            current: `wrong current ${i}`,
            password: 'a new password 1234',
            confirm: 'a new password 1234',
          });
          answers.push(await page.text());
        }
        const checked = answers.filter((a) => /current password is not correct/.test(a)).length;
        assert.equal(checked, 20);
        assert.match(answers[29] ?? '', /too many wrong attempts/);
        const right = await user.post('/portal/account/password', {
          current: PORTAL_PASSWORD,
          password: 'a new password 1234',
          confirm: 'a new password 1234',
        });
        assert.equal(right.status, 400, 'locked, whatever the password');
      });
    });
  }
});
