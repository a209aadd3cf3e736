import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testConfig } from '../../src/config.js';
import { hashPassword } from '../../src/domain/access/passwords.js';
import {
  findPasswordHash,
  listMail,
  setPasswordHash,
} from '../../src/store/repositories/portal-repository.js';
import { ManualWallClock } from '../manual-wall-clock.js';
import type { PortalServer } from './portal-harness.js';
import {
  DATABASES,
  PORTAL_PASSWORD,
  cookiesOf,
  csrfIn,
  emailFor,
  httpSession,
  signInHttp,
  startPortal,
} from './portal-harness.js';

// The portal's security rules over raw HTTP, where no browser helps: CSRF, other
// organisations' ids, roles, sessions across a restart, sign-out and password changes, and the
// lock after 20 wrong passwords that tells nobody whether the account exists.

/** A form shown before sign-in: its CSRF cookie and token. */
const defaultPortal = testConfig().portal;

async function preSession(baseUrl: string, path = '/portal/sign-in') {
  const page = await fetch(baseUrl + path, { redirect: 'manual' });
  const cookie = `esim_csrf=${cookiesOf(page)['esim_csrf'] ?? ''}`;
  return { cookie, csrf: csrfIn(await page.text()) };
}

type PreSession = Awaited<ReturnType<typeof preSession>>;

/** Posts a public form, with the given pre-session (a new one unless given). */
async function postPublic(
  baseUrl: string,
  path: string,
  fields: Record<string, string>,
  pre?: PreSession,
) {
  const { cookie, csrf } = pre ?? (await preSession(baseUrl));
  return fetch(baseUrl + path, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
    redirect: 'manual',
  });
}

function signInAttempt(baseUrl: string, email: string, password: string, pre?: PreSession) {
  return postPublic(baseUrl, '/portal/sign-in', { email, password }, pre);
}

async function userEmails(portal: PortalServer): Promise<string> {
  const admin = await signInHttp(portal.baseUrl, 'Admin');
  return (await admin.get('/portal/users')).text();
}

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('portal security, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    // One portal for the rules that need no special setting; its wall clock moves only when a
    // test moves it, which the lock and session tests at the end do.
    describe(`portal security (${kind})`, { concurrency: 1 }, () => {
      let portal: PortalServer;
      const wallClock = new ManualWallClock();
      before(async () => {
        portal = await startPortal(kind, { wallClock });
      });
      after(() => portal.close());

      test('a state-changing request without the session CSRF token is refused', async () => {
        const admin = await signInHttp(portal.baseUrl, 'Admin');
        const other = await signInHttp(portal.baseUrl, 'Finance');
        const fields = {
          firstName: 'Eve',
          lastName: 'Forged',
          email: 'eve@forged.test',
          role: 'Admin',
        };
        for (const csrf of [false, '', 'x'.repeat(43), other.csrf] as const) {
          const response = await admin.post('/portal/users', fields, { csrf });
          assert.equal(response.status, 403, `token ${String(csrf)}`);
          assert.match(await response.text(), /form has expired or did not come from the portal/);
        }
        const signOut = await admin.post('/portal/sign-out', {}, { csrf: false });
        assert.equal(signOut.status, 403);
        assert.equal((await admin.get('/portal')).status, 200, 'the session still works');
        assert.doesNotMatch(await userEmails(portal), /eve@forged\.test/);
        const noCookie = await fetch(`${portal.baseUrl}/portal/sign-in`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            email: emailFor('Admin'),
            password: PORTAL_PASSWORD,
          }).toString(),
          redirect: 'manual',
        });
        assert.equal(noCookie.status, 403, 'sign-in needs the CSRF token of its form too');
      });

      test("another organisation's ids give 404, exactly like ids that do not exist", async () => {
        const admin = await signInHttp(portal.baseUrl, 'Admin');
        const otherId = portal.otherAdmin.id;
        for (const id of [otherId, '00000000-0000-4000-8000-000000000000']) {
          const role = await admin.post(`/portal/users/${id}/role`, { role: 'Viewer' });
          assert.equal(role.status, 404);
          const remove = await admin.post(`/portal/users/${id}/remove`);
          assert.equal(remove.status, 404);
          assert.match(await remove.text(), /not found/);
        }
        const otherAdmin = await signInHttp(portal.baseUrl, 'Admin', 'other');
        assert.match(await (await otherAdmin.get('/portal')).text(), /Admin Other · Admin/);
      });

      test('a Viewer cannot add users, change roles, remove users or read the activity', async () => {
        const viewer = await signInHttp(portal.baseUrl, 'Viewer');
        const add = await viewer.post('/portal/users', {
          firstName: 'Vic',
          lastName: 'Viewer',
          email: 'vic@viewer.test',
          role: 'Admin',
        });
        assert.equal(add.status, 403);
        assert.match(await add.text(), /your role \(Viewer\) does not allow this/);
        const target = portal.users.Support.id;
        assert.equal(
          (await viewer.post(`/portal/users/${target}/role`, { role: 'Admin' })).status,
          403,
        );
        assert.equal((await viewer.post(`/portal/users/${target}/remove`)).status, 403);
        assert.equal((await viewer.get('/portal/activity')).status, 403);
        const users = await userEmails(portal);
        assert.doesNotMatch(users, /vic@viewer\.test/);
        assert.match(users, new RegExp(emailFor('Support')));
      });

      test('a password hash keeps the cost it was made with: PORTAL_PASSWORD_COST applies to new ones', async () => {
        const developer = portal.users.Developer.id;
        const made = await findPasswordHash(portal.deps.store.db, developer);
        const cost = portal.deps.config.portal.passwordCost;
        assert.equal(cost, 10, 'the tests run at the cheapest cost a simulator allows');
        assert.match(made ?? '', /^scrypt\$1024\$8\$1\$/);
        const dearer = await hashPassword(PORTAL_PASSWORD, 15);
        assert.match(dearer, /^scrypt\$32768\$8\$1\$/);
        await setPasswordHash(portal.deps.store.db, developer, dearer, new Date().toISOString());
        const wrong = await signInAttempt(
          portal.baseUrl,
          emailFor('Developer'),
          'not the password',
        );
        assert.equal(wrong.status, 401);
        const session = await signInHttp(portal.baseUrl, 'Developer');
        assert.match(await (await session.get('/portal')).text(), /Developer Portal · Developer/);
      });

      test('sessions survive a server restart and end at sign-out', async () => {
        const session = await signInHttp(portal.baseUrl, 'Developer');
        await portal.restart();
        const page = await session.get('/portal');
        assert.equal(page.status, 200);
        assert.match(await page.text(), /Developer Portal · Developer/);
        const signOut = await session.post('/portal/sign-out');
        assert.equal(signOut.status, 303);
        assert.equal(signOut.headers.get('location'), '/portal/sign-in');
        const after = await session.get('/portal/users');
        assert.equal(after.status, 303);
        assert.equal(after.headers.get('location'), '/portal/sign-in?next=%2Fportal%2Fusers');
      });

      test(
        'a session started on one instance works on another and ends there for both',
        {
          skip: kind === 'sqlite' ? 'a SQLite file serves one instance' : false,
        },
        async () => {
          const second = await portal.secondInstance();
          try {
            const first = await signInHttp(portal.baseUrl, 'Finance');
            const there = httpSession(second.baseUrl, first.cookie, first.csrf);
            assert.equal((await there.get('/portal')).status, 200);
            assert.equal((await there.post('/portal/sign-out')).status, 303);
            assert.equal((await first.get('/portal')).status, 303, 'signed out on both');
          } finally {
            await second.close();
          }
        },
      );

      test('a session cookie from before a password change no longer works', async () => {
        const before = await signInHttp(portal.baseUrl, 'Support');
        const forgot = await postPublic(portal.baseUrl, '/portal/forgot-password', {
          email: emailFor('Support').toUpperCase(),
        });
        assert.equal(forgot.status, 200);
        assert.match(await forgot.text(), /If an account has this email address/);
        const [mail] = await listMail(portal.deps.store.db, { to: emailFor('Support'), limit: 1 });
        const link = /http:\/\/127\.0\.0\.1:\d+(\/portal\/set-password\?token=([\w-]+))/.exec(
          mail?.body ?? '',
        );
        const path = link?.[1];
        const token = link?.[2];
        assert.ok(path !== undefined && token !== undefined, 'the mail carries the link');
        const { cookie, csrf } = await preSession(portal.baseUrl, path);
        const newPassword = 'a brand new password';
        const set = await fetch(`${portal.baseUrl}/portal/set-password`, {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            _csrf: csrf,
            token,
            password: newPassword,
            confirm: newPassword,
          }).toString(),
          redirect: 'manual',
        });
        assert.equal(set.status, 303);
        const stale = await before.get('/portal');
        assert.equal(stale.status, 303, 'the old session ended');
        assert.equal(
          (await signInAttempt(portal.baseUrl, emailFor('Support'), PORTAL_PASSWORD)).status,
          401,
        );
        const fresh = await signInHttp(portal.baseUrl, 'Support', 'main', newPassword);
        assert.equal((await fresh.get('/portal')).status, 200);
        const again = await fetch(`${portal.baseUrl}${path}`);
        assert.equal(again.status, 400, 'the link works once');
        assert.match(await again.text(), /This link is not valid any more/);
      });

      test('after sign-in, the next page can only be inside the portal', async () => {
        for (const [next, expected] of [
          ['/portal/users', '/portal/users'],
          ['//evil.example/portal', '/portal'],
          ['https://evil.example/', '/portal'],
          ['/portalx', '/portal'],
        ] as const) {
          const response = await postPublic(portal.baseUrl, '/portal/sign-in', {
            email: emailFor('Viewer'),
            password: PORTAL_PASSWORD,
            next,
          });
          assert.equal(response.status, 303);
          assert.equal(response.headers.get('location'), expected, next);
        }
      });

      test('20 wrong passwords lock the account for a while, and the answers do not tell whether it exists', async () => {
        const known = emailFor('Finance');
        const unknown = 'nobody@main.portal.test';
        const answers = async (email: string) => {
          // One sign-in form, sent again and again, as a guesser would.
          const pre = await preSession(portal.baseUrl);
          const out: string[] = [];
          for (let i = 0; i < 20; i += 1) {
            const response = await signInAttempt(portal.baseUrl, email, `wrong password ${i}`, pre);
            out.push(
              `${response.status} ${/role="alert">([^<]*)</.exec(await response.text())?.[1] ?? ''}`,
            );
          }
          return out;
        };
        const knownAnswers = await answers(known);
        const unknownAnswers = await answers(unknown);
        assert.deepEqual(knownAnswers, unknownAnswers);
        assert.match(knownAnswers[0] ?? '', /^401 The email address or password is not correct/);
        assert.match(knownAnswers[19] ?? '', /^401 Too many failed sign-ins/);
        for (const email of [known, unknown]) {
          const locked = await signInAttempt(portal.baseUrl, email, PORTAL_PASSWORD);
          assert.equal(locked.status, 401);
          assert.match(await locked.text(), /Too many failed sign-ins/);
        }
        assert.equal(
          (await signInAttempt(portal.baseUrl, emailFor('Viewer'), PORTAL_PASSWORD)).status,
          303,
          'other accounts still sign in',
        );
        wallClock.advance(15 * 60_000 + 1000);
        assert.equal(
          (await signInAttempt(portal.baseUrl, known, PORTAL_PASSWORD)).status,
          303,
          'the lock lapses',
        );
      });

      test('a session ends after 30 idle minutes and 12 hours after sign-in', async () => {
        const idle = await signInHttp(portal.baseUrl, 'Viewer');
        wallClock.advance(29 * 60_000);
        assert.equal((await idle.get('/portal')).status, 200);
        wallClock.advance(29 * 60_000);
        assert.equal(
          (await idle.get('/portal')).status,
          200,
          'each request restarts the idle time',
        );
        wallClock.advance(31 * 60_000);
        assert.equal((await idle.get('/portal')).status, 303, 'idle too long');
        const busy = await signInHttp(portal.baseUrl, 'Viewer');
        for (let elapsed = 0; elapsed < 12 * 60; elapsed += 20) {
          wallClock.advance(20 * 60_000);
          const page = await busy.get('/portal');
          if (elapsed + 20 < 12 * 60)
            assert.equal(page.status, 200, `after ${elapsed + 20} minutes`);
          else assert.equal(page.status, 303, 'ended 12 hours after sign-in');
        }
      });
    });

    describe(`portal sign-in: the lock per client address (${kind})`, { concurrency: 1 }, () => {
      let portal: PortalServer;
      before(async () => {
        portal = await startPortal(kind, {
          config: { portal: { ...defaultPortal, lockFailures: 2 } },
        });
      });
      after(() => portal.close());

      test('failures spread over many accounts from one address lock that address', async () => {
        // Two failures lock an account; an address gets five times as many (10).
        const pre = await preSession(portal.baseUrl);
        for (let i = 0; i < 10; i += 1) {
          const response = await signInAttempt(
            portal.baseUrl,
            `guess${i}@main.portal.test`,
            'wrong',
            pre,
          );
          assert.equal(response.status, 401);
        }
        const locked = await signInAttempt(portal.baseUrl, emailFor('Admin'), PORTAL_PASSWORD);
        assert.equal(locked.status, 401);
        assert.match(await locked.text(), /Too many failed sign-ins/);
      });
    });
  }
});
