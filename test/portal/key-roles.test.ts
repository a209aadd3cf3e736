import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { api } from './money-fixtures.js';
import type { PortalServer } from './portal-harness.js';
import { DATABASES, signInHttp, startPortal } from './portal-harness.js';

// The API key is the organisation's whole API power, so only an Admin may reveal or rotate it: a
// Developer gets no key by any portal route, and so can neither charge, order nor send SMS
// through the API. Rotation for a leak: the form asks why, a leak gets no grace period, and a key
// in its grace period reads itself, never its replacement.

const newKeyIn = (page: string): string | undefined =>
  /data-testid="api-key">([^<]+)</.exec(page)?.[1];

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('who holds the API key, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    describe(`who holds the API key (${kind})`, { concurrency: 1 }, () => {
      let portal: PortalServer;
      before(async () => {
        portal = await startPortal(kind);
      });
      after(() => portal.close());

      test('a Developer can neither reveal nor rotate the key, and no page shows it', async () => {
        const developer = await signInHttp(portal.baseUrl, 'Developer');
        const page = await (await developer.get('/portal/api')).text();
        assert.doesNotMatch(page, /action="\/portal\/api\/key\/(reveal|rotate)"/);
        assert.match(page, /action="\/portal\/api\/callback"/, 'callbacks stay theirs');
        for (const path of ['/portal', '/portal/api', '/portal/account', '/portal/esims']) {
          const body = await (await developer.get(path)).text();
          assert.ok(!body.includes(portal.organisationApiKey), path);
        }
        const reveal = await developer.post('/portal/api/key/reveal', { confirm: 'yes' });
        assert.equal(reveal.status, 403);
        assert.ok(!(await reveal.text()).includes(portal.organisationApiKey));
        const rotate = await developer.post('/portal/api/key/rotate', {
          confirmRotate: 'yes',
          reason: 'routine',
          grace: 'default',
        });
        assert.equal(rotate.status, 403);
        assert.equal((await api(portal, '/organisation')).status, 200, 'the key is unchanged');
      });

      test('an Admin rotating after a leak gets no grace period; routine keeps 24 hours', async () => {
        const admin = await signInHttp(portal.baseUrl, 'Admin');
        const page = await (await admin.get('/portal/api')).text();
        assert.match(page, /During a grace period the old key keeps working\s+for every API call/);
        assert.match(page, /Why are you rotating the key\?/);

        const unexplained = await admin.post('/portal/api/key/rotate', {
          confirmRotate: 'yes',
          grace: 'default',
        });
        assert.equal(unexplained.status, 400);
        assert.match(await unexplained.text(), /choose why you are rotating the key/);
        const leakWithGrace = await admin.post('/portal/api/key/rotate', {
          confirmRotate: 'yes',
          reason: 'leak',
          grace: '86400',
        });
        assert.equal(leakWithGrace.status, 400);
        assert.match(await leakWithGrace.text(), /a key that leaked must stop at once/);

        const original = portal.organisationApiKey;
        const routine = await admin.post('/portal/api/key/rotate', {
          confirmRotate: 'yes',
          reason: 'routine',
          grace: 'default',
        });
        assert.equal(routine.status, 200);
        const second = newKeyIn(await routine.text());
        assert.ok(second !== undefined && second !== original);
        // The old key works for its grace period but reads only itself.
        const viaOld = await api(portal, '/organisation', { apiKey: original });
        assert.equal(viaOld.status, 200);
        const shown = (viaOld.body as { organisations: { apiKey: string }[] }).organisations[0];
        assert.equal(shown?.apiKey, original);
        assert.ok(!JSON.stringify(viaOld.body).includes(second));

        const leak = await admin.post('/portal/api/key/rotate', {
          confirmRotate: 'yes',
          reason: 'leak',
          grace: 'default',
        });
        assert.equal(leak.status, 200);
        const leakPage = await leak.text();
        const third = newKeyIn(leakPage);
        assert.ok(third !== undefined);
        assert.doesNotMatch(leakPage, /previous key works until/);
        assert.equal((await api(portal, '/organisation', { apiKey: original })).status, 403);
        assert.equal((await api(portal, '/organisation', { apiKey: second })).status, 403);
        assert.equal((await api(portal, '/organisation', { apiKey: third })).status, 200);
      });
    });
  }
});
