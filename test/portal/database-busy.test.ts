import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { ManualWallClock } from '../manual-wall-clock.js';
import type { PortalServer } from './portal-harness.js';
import { cookiesOf, csrfIn, emailFor, signInHttp, startPortal } from './portal-harness.js';

// The portal when the database cannot take a write now (another process holds SQLite's write
// lock past SQLITE_BUSY_WAIT_MS; on PostgreSQL a full pool, a refused connection or a conflict
// that outlasts its reruns are the same error): a 503 page with Retry-After that says nothing
// was changed, as the API answers 503 database_busy; never a 500, and a page even where no page
// exists (the 404 page of a signed-in user, whose session is touched). Once the lock is gone the
// same form works.

describe('portal: the database busy [sqlite]', () => {
  let portal: PortalServer;
  let other: SQLite.Database;
  const wall = new ManualWallClock();

  before(async () => {
    portal = await startPortal('sqlite', { config: { sqliteBusyWaitMs: 200 }, wallClock: wall });
    const target = portal.deps.config.database;
    assert.ok(target.kind === 'sqlite');
    other = new SQLite(target.path);
  });
  after(async () => {
    other.close();
    await portal.close();
  });

  test('a sign-in, a signed-in form and a missing page answer 503 with Retry-After, change nothing, and work once the lock is gone', async () => {
    const session = await signInHttp(portal.baseUrl, 'Admin');
    const signInPage = await fetch(`${portal.baseUrl}/portal/sign-in`, { redirect: 'manual' });
    const preSession = {
      cookie: `esim_csrf=${cookiesOf(signInPage)['esim_csrf'] ?? ''}`,
      csrf: csrfIn(await signInPage.text()),
    };
    const signIn = () =>
      fetch(`${portal.baseUrl}/portal/sign-in`, {
        method: 'POST',
        headers: {
          cookie: preSession.cookie,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          _csrf: preSession.csrf,
          email: emailFor('Viewer'),
          password: 'not the password',
        }).toString(),
        redirect: 'manual',
      });
    const setCallback = () =>
      session.post('/portal/api/callback', {
        callbackUrl: 'https://receiver.example/usage',
        callbackVersion: 'V3',
      });

    other.exec('begin immediate');
    try {
      // Past the minute after which a request records the session's use: a write.
      wall.advance(61_000);
      const missing = await session.get('/portal/no-such-page');
      for (const response of [await signIn(), await setCallback(), missing]) {
        assert.equal(response.status, 503);
        assert.equal(response.headers.get('retry-after'), '1');
        assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
        assert.match(
          await response.text(),
          /The database is busy and nothing was changed\. Try again in a moment\./,
        );
      }
    } finally {
      other.exec('rollback');
    }
    const unchanged = other
      .prepare('select callback_url from organisations where id = ?')
      .get(portal.organisationId) as { callback_url: string | null };
    assert.notEqual(unchanged.callback_url, 'https://receiver.example/usage');

    assert.equal((await signIn()).status, 401);
    const saved = await setCallback();
    assert.equal(saved.status, 303, await saved.text());
    const changed = other
      .prepare('select callback_url from organisations where id = ?')
      .get(portal.organisationId) as { callback_url: string | null };
    assert.equal(changed.callback_url, 'https://receiver.example/usage');
  });
});
