import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifyCallbackSignature } from '../../src/verify.js';
import { FR_1MB, buy, seedTestBundles, sim } from '../esim-fixtures.js';
import { DATABASES, eventually, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { startReceiver } from '../receiver.js';
import type { Receiver } from '../receiver.js';
import { deliveries, workerFor } from './fixtures.js';
import type { CallbackWorker } from '../../src/workers/callback-delivery.js';

// CALLBACK_DELIVERY_THREAD=on: the whole delivery worker runs on a thread of its own with a
// database connection of its own (a second connection to the SQLite file, or its own PostgreSQL
// pool). Events made through /_sim reach a local receiver, the outcomes show in the API, and a
// retry brought forward by advancing the simulated clock is sent by the thread, which reads the
// clock's offset from memory it shares with the service.
for (const kind of DATABASES) {
  describe(`callback delivery on the delivery thread [${kind}]`, () => {
    let t: TestApp;
    let receiver: Receiver;
    let worker: CallbackWorker;
    let org: TestOrg;
    let iccids: string[];
    let dir: string | undefined;

    before(async () => {
      receiver = await startReceiver();
      // A second connection cannot open SQLite in memory: the app runs on a file here.
      dir = kind === 'sqlite' ? mkdtempSync(join(tmpdir(), 'esim-delivery-thread-')) : undefined;
      t = await startTestApp(kind, {
        callbackDeliveryThread: true,
        callbackWorkerIntervalMs: 20,
        callbackRetryScheduleSeconds: [600, 600],
        ...(dir === undefined
          ? {}
          : { database: { kind: 'sqlite', path: join(dir, 'esim.sqlite') } }),
      });
      await seedTestBundles(t);
      org = await t.createOrg({
        balance: 100_000,
        callbackUrl: `${receiver.url}/hook`,
        callbackVersion: 'V3',
      });
      iccids = (await buy(t, org, FR_1MB.name, { quantity: 2 })).iccids;
      worker = workerFor(t);
      worker.start();
    });
    after(async () => {
      await worker.stop();
      await t.close();
      await receiver.close();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it('delivers events made through /_sim and records them, seen through the API', async () => {
      const [iccid = ''] = iccids;
      await sim(t, 'POST', `/_sim/esims/${iccid}/install`, {});
      await sim(t, 'POST', `/_sim/esims/${iccid}/attach`, { country: 'FR' });
      await sim(t, 'POST', `/_sim/esims/${iccid}/attach`, { country: 'DE' });
      const sent = await eventually(
        async () => {
          const all = await deliveries(t, org.apiKey);
          return all.length > 0 && all.every((d) => d.status === 'delivered') ? all : undefined;
        },
        20_000,
        'every callback delivered',
      );
      assert.equal(receiver.at('/hook').length, sent.length);
      for (const r of receiver.at('/hook')) {
        const signature = String(r.headers['x-signature-sha256']);
        assert.ok(verifyCallbackSignature(r.rawBody, signature, org.apiKey));
        assert.ok(sent.some((d) => d.id === r.headers['x-event-id']));
      }
    });

    it('sends a retry once the simulated clock is advanced past it', async () => {
      receiver.behave('/hook', { statuses: [503], status: 200 });
      const before = receiver.at('/hook').length;
      const [, iccid = ''] = iccids;
      await sim(t, 'POST', `/_sim/esims/${iccid}/install`, {});
      await sim(t, 'POST', `/_sim/esims/${iccid}/attach`, { country: 'FR' });
      const failed = await eventually(
        async () => {
          const all = await deliveries(t, org.apiKey);
          const retrying = all.filter((d) => d.status !== 'delivered');
          return retrying.length === 1 && retrying[0]?.attemptCount === 1 ? retrying : undefined;
        },
        20_000,
        'one callback answered 503 and waiting for its retry',
      );
      const id = failed[0]?.id;
      // The retry is due ten minutes (+-20 %) of domain time on: only the clock's move brings it
      // forward.
      await sim(t, 'POST', '/_sim/clock/advance', { seconds: 721 });
      await eventually(
        async () => {
          const all = await deliveries(t, org.apiKey);
          const retried = all.find((d) => d.id === id);
          return retried?.status === 'delivered' && retried.attemptCount === 2 ? true : undefined;
        },
        20_000,
        'the retry delivered',
      );
      assert.ok(receiver.at('/hook').length >= before + 2);
    });
  });
}
