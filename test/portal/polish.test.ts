import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { updateOrganisationSettings } from '../../src/domain/organisations/organisation-changes.js';
import { createCallbackWorker } from '../../src/workers/callback-delivery.js';
import { startReceiver } from '../receiver.js';
import type { Receiver } from '../receiver.js';
import type { PortalServer } from './portal-harness.js';
import { DATABASES, signInHttp, startPortal } from './portal-harness.js';
import { GB_1GB, api, buyOntoNewEsims } from './shop-fixtures.js';

// The portal's copy and layout faults, each as it was seen: the only Admin offered "Remove",
// "1 orders", "completed: Order completed: …", a used-up bundle drawn as a full green bar, four
// Utilisation callbacks that look the same, a signed-in unknown page that looked signed out, and
// buying by typing an exact bundle name.

// The databases' suites run side by side, each one test after another: they mostly wait (on
// their servers, the databases, the browser) rather than compute.
describe('portal polish, on each database', { concurrency: true }, () => {
  for (const kind of DATABASES) {
    describe(`portal polish (${kind})`, { concurrency: 1 }, () => {
      let portal: PortalServer;
      let receiver: Receiver;
      let reference: string;
      let iccid: string;

      before(async () => {
        portal = await startPortal(kind);
        receiver = await startReceiver();
        await updateOrganisationSettings(
          { ...portal.deps, db: portal.deps.store.db },
          portal.organisationId,
          { callbackUrl: `${receiver.url}/hook` },
        );
        const caller = { baseUrl: portal.baseUrl, apiKey: portal.organisationApiKey };
        ({
          reference,
          iccids: [iccid = ''],
        } = await buyOntoNewEsims(caller, GB_1GB, 1));
        for (const [path, body] of [
          [`/_sim/esims/${iccid}/install`, {}],
          [`/_sim/esims/${iccid}/attach`, { country: 'GB' }],
          [`/_sim/esims/${iccid}/usage`, { bytes: 2_000_000_000 }],
        ] as const) {
          assert.equal((await api(caller, 'POST', path, body)).status, 200, path);
        }
        await createCallbackWorker(portal.deps, { warn: () => undefined }).drain();
      });
      after(async () => {
        await receiver.close();
        await portal.close();
      });

      test('the only Admin is not offered Remove; the other users are', async () => {
        const other = await signInHttp(portal.baseUrl, 'Admin', 'other');
        const page = await (await other.get('/portal/users')).text();
        assert.doesNotMatch(page, /\/remove"/);
        assert.match(page, /The only Admin/);
        const main = await signInHttp(portal.baseUrl, 'Admin');
        assert.match(await (await main.get('/portal/users')).text(), /\/remove"/);
      });

      test('one order is "1 order", and its status is said once', async () => {
        const session = await signInHttp(portal.baseUrl, 'Viewer');
        const list = await (await session.get('/portal/orders')).text();
        assert.match(list, /\b1 order, newest first/);
        const order = await (await session.get(`/portal/orders/${reference}`)).text();
        assert.match(order, /<dd>Order completed: /);
        assert.doesNotMatch(order, /completed: Order completed/);
      });

      test('a used-up bundle is not drawn as a full green bar', async () => {
        const session = await signInHttp(portal.baseUrl, 'Viewer');
        const page = await (await session.get(`/portal/esims/${iccid}`)).text();
        const meter = /<meter([^>]*)>/.exec(page)?.[1] ?? '';
        const attr = (name: string) => Number(new RegExp(`${name}="(\\d+)"`).exec(meter)?.[1]);
        // Less is better (optimum 0): a full bar is past `high`, which browsers draw red.
        assert.equal(attr('optimum'), 0);
        assert.ok(attr('value') >= attr('max'), 'the bundle is used up');
        assert.ok(attr('value') > attr('high'), 'past the high mark');
        assert.match(page, /\(used up\)/);
      });

      test('the four Utilisation callbacks are told apart in the delivery log', async () => {
        const session = await signInHttp(portal.baseUrl, 'Developer');
        const page = await (await session.get('/portal/api')).text();
        for (const threshold of [1, 50, 80, 100]) {
          assert.match(page, new RegExp(`Utilisation ${threshold} %`), `${threshold} %`);
        }
      });

      test('a signed-in unknown page is the signed-in 404', async () => {
        const session = await signInHttp(portal.baseUrl, 'Viewer');
        const res = await session.get('/portal/no-such-page');
        assert.equal(res.status, 404);
        const page = await res.text();
        assert.match(page, /Sign out/);
        assert.match(page, /Portal Organisation/);
        const signedOut = await fetch(`${portal.baseUrl}/portal/no-such-page`);
        assert.equal(signedOut.status, 404);
        assert.doesNotMatch(await signedOut.text(), /Sign out/);
      });

      test('Buy bundles offers the bundles to pick from as one types', async () => {
        const session = await signInHttp(portal.baseUrl, 'Admin');
        const page = await (await session.get('/portal/orders/new')).text();
        assert.match(page, /<input[^>]*list="bundle-choices"/);
        assert.match(page, new RegExp(`<option value="${GB_1GB}" label="[^"]+"`));
      });
    });
  }
});
