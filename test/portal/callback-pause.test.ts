import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { NetworkEvent } from '../../src/domain/esims/lifecycle/network-events.js';
import { updateOrganisationSettings } from '../../src/domain/organisations/organisation-changes.js';
import type { CallbackWorker } from '../../src/workers/callback-delivery.js';
import { createCallbackWorker } from '../../src/workers/callback-delivery.js';
import { snapshot } from '../callbacks/fixtures.js';
import { eventually } from '../harness.js';
import { parseExposition } from '../prometheus-text.js';
import { startReceiver } from '../receiver.js';
import type { Receiver } from '../receiver.js';
import type { PortalServer } from './portal-harness.js';
import { DATABASES, signInHttp, startPortal } from './portal-harness.js';

// A callback endpoint that never answers is backed off, then paused after CALLBACK_PAUSE_AFTER
// unanswered attempts in a row: the API & callbacks page says so, the alert metric counts it,
// new callbacks past CALLBACK_MAX_PENDING are stored failed, and Resume deliveries sends the
// waiting ones.

/** A local port nothing listens on: every connection is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let serial = 0;

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('a silent callback endpoint is paused, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    describe(`a silent callback endpoint is paused (${kind})`, { concurrency: 1 }, () => {
      let portal: PortalServer;
      let receiver: Receiver;
      let worker: CallbackWorker;

      const setUrl = (callbackUrl: string) =>
        updateOrganisationSettings(
          { ...portal.deps, db: portal.deps.store.db },
          portal.organisationId,
          { callbackUrl },
          portal.deps.checkCallbackUrl,
        );
      /** Usage callbacks for `n` eSIMs of the organisation, as the network reports them. */
      const usage = async (n: number) => {
        for (let i = 0; i < n; i += 1) {
          serial += 1;
          const event: NetworkEvent = {
            type: 'usage',
            organisationId: portal.organisationId,
            iccid: `894400000000${String(serial).padStart(7, '0')}`,
            assignment: snapshot({ usedBytes: 10_000_000 }),
            usedBefore: 0,
            firstUse: false,
          };
          const deps = portal.deps;
          await deps.store.db
            .transaction()
            .execute((trx) => deps.networkEvents.record(trx, event, deps.clock.now()));
        }
      };
      const callbacks = async () => {
        const res = await fetch(`${portal.baseUrl}/v2.1/callbacks?perPage=100`, {
          headers: { 'x-api-key': portal.organisationApiKey },
        });
        assert.equal(res.status, 200);
        return ((await res.json()) as { callbacks: { status: string; attemptCount: number }[] })
          .callbacks;
      };
      const paused = async () =>
        parseExposition(await (await fetch(`${portal.baseUrl}/metrics`)).text()).value(
          'esim_callback_endpoints_paused',
        );

      before(async () => {
        receiver = await startReceiver();
        portal = await startPortal(kind, {
          config: {
            callbackPauseAfter: 3,
            callbackMaxPending: 5,
            callbackWorkerIntervalMs: 20,
            callbackOrgConcurrency: 4,
          },
        });
        worker = createCallbackWorker(portal.deps, { warn: () => undefined });
      });
      after(async () => {
        await worker.stop();
        await portal.close();
        await receiver.close();
      });

      test('three unanswered attempts pause deliveries; resuming sends what waited', async () => {
        await setUrl(`http://127.0.0.1:${await closedPort()}/hook`);
        await usage(3);
        worker.start();
        const developer = await signInHttp(portal.baseUrl, 'Developer');
        const page = await eventually(
          async () => {
            const text = (await (await developer.get('/portal/api')).text()).replace(/\s+/g, ' ');
            return text.includes('Deliveries paused') ? text : undefined;
          },
          30_000,
          'the pause on the page',
        );
        assert.match(page, /gave no answer to 3 attempts in a row/);
        assert.match(page, /3 callbacks wait/);
        assert.match(page, /Resume deliveries/);
        assert.equal(await paused(), 1);

        // While paused, callbacks queue up to the bound; the next one is stored failed.
        await usage(3);
        const listed = await callbacks();
        assert.equal(listed.filter((c) => c.status === 'pending').length, 5);
        const refused = listed.filter((c) => c.status === 'failed');
        assert.equal(refused.length, 1);
        assert.equal(refused[0]?.attemptCount, 0, 'stored failed without an attempt');
        const testEvent = await developer.post('/portal/api/test-event');
        assert.equal(testEvent.status, 429);
        assert.match(await testEvent.text(), /5 callbacks are already waiting for delivery/);

        // A Viewer may not resume; a Developer may, once the receiver is fixed.
        const viewer = await signInHttp(portal.baseUrl, 'Viewer');
        assert.equal((await viewer.post('/portal/api/callback/resume')).status, 403);
        await setUrl(`${receiver.url}/hook`);
        // Past the waiting callbacks' next retry (service time), so resuming is all they wait for.
        portal.clock.advance(3600);
        const resumed = await developer.post('/portal/api/callback/resume');
        assert.equal(resumed.status, 303);
        await eventually(
          async () => {
            const list = await callbacks();
            return list.filter((c) => c.status === 'delivered').length === 5 ? true : undefined;
          },
          30_000,
          'the waiting callbacks delivered',
        );
        assert.equal(new Set(receiver.at('/hook').map((r) => r.headers['x-event-id'])).size, 5);
        const after = await (await developer.get('/portal/api')).text();
        assert.doesNotMatch(after, /Deliveries paused|Deliveries backed off/);
        await eventually(async () => ((await paused()) === 0 ? true : undefined), 30_000, 'metric');
      });
    });
  }
});
