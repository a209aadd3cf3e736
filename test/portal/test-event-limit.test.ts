import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { updateOrganisationSettings } from '../../src/domain/organisations/organisation-changes.js';
import { ManualWallClock } from '../manual-wall-clock.js';
import type { PortalServer } from './portal-harness.js';
import { DATABASES, signInHttp, startPortal } from './portal-harness.js';

// "Send a test event" is limited per organisation per minute (5 by default): a tenant cannot
// make the service flood a URL of its choosing, nor fill the delivery queue others share.

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('test events per minute, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    describe(`test events per minute (${kind})`, { concurrency: 1 }, () => {
      let portal: PortalServer;
      const wallClock = new ManualWallClock();
      before(async () => {
        portal = await startPortal(kind, { wallClock });
        for (const id of [portal.organisationId, portal.otherOrganisationId]) {
          await updateOrganisationSettings(
            { ...portal.deps, db: portal.deps.store.db },
            id,
            { callbackUrl: 'http://127.0.0.1:9/never' },
            portal.deps.checkCallbackUrl,
          );
        }
      });
      after(() => portal.close());

      test('the sixth test event of a minute is refused with 429; the next minute has room', async () => {
        const admin = await signInHttp(portal.baseUrl, 'Admin');
        const statuses: number[] = [];
        for (let i = 0; i < 6; i += 1) {
          const res = await admin.post('/portal/api/test-event');
          statuses.push(res.status);
          if (res.status === 429) assert.match(await res.text(), /at most 5 test events a minute/);
          else await res.arrayBuffer();
        }
        assert.deepEqual(statuses, [303, 303, 303, 303, 303, 429]);
        // Another organisation has its own count.
        const other = await signInHttp(portal.baseUrl, 'Admin', 'other');
        assert.equal((await other.post('/portal/api/test-event')).status, 303);
        wallClock.advance(61_000);
        assert.equal((await admin.post('/portal/api/test-event')).status, 303);
      });
    });
  }
});
