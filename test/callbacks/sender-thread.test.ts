import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { verifyCallbackSignature } from '../../src/verify.js';
import { startReceiver } from '../receiver.js';
import type { Receiver } from '../receiver.js';
import { deliveries, recordUsage, snapshot, workerFor } from './fixtures.js';
import type { CallbackWorker } from '../../src/workers/callback-delivery.js';

// CALLBACK_SENDER_THREAD=on: the requests are made on the sender thread and reach the receiver
// as the event loop's would (delivery.test.ts runs the same checks with the setting off): V3
// signed over the bytes sent, V2 reduced, the event headers, and each delivery recorded.
describe('callback delivery with the sender thread', () => {
  let t: TestApp;
  let receiver: Receiver;
  let worker: CallbackWorker;
  let v2: TestOrg;
  let v3: TestOrg;

  before(async () => {
    receiver = await startReceiver();
    t = await startTestApp('sqlite', {
      callbackSenderThread: true,
      callbackWorkerIntervalMs: 20,
      callbackTimeoutMs: 10_000,
    });
    v2 = await t.createOrg({ callbackUrl: `${receiver.url}/v2`, callbackVersion: 'V2' });
    v3 = await t.createOrg({ callbackUrl: `${receiver.url}/v3`, callbackVersion: 'V3' });
    worker = workerFor(t);
    worker.start();
  });
  after(async () => {
    await worker.stop();
    await t.close();
    await receiver.close();
  });

  it('sends V2 reduced and V3 signed bodies with their event headers, and records them', async () => {
    const a = snapshot({ usedBytes: 600_000_000 });
    await recordUsage(t, v2.id, a, 0, { firstUse: true });
    await recordUsage(t, v3.id, a, 0, { firstUse: true });
    await eventually(async () =>
      receiver.at('/v2').length === 3 && receiver.at('/v3').length === 3 ? true : undefined,
    );
    const sent = await deliveries(t, v3.apiKey);
    assert.equal(sent.length, 3);
    for (const r of receiver.at('/v3')) {
      const signature = String(r.headers['x-signature-sha256']);
      assert.ok(verifyCallbackSignature(r.rawBody, signature, v3.apiKey));
      assert.equal(verifyCallbackSignature(r.rawBody, signature, v2.apiKey), false);
      assert.equal(r.headers['x-delivery-attempt'], '1');
      assert.ok(sent.some((d) => d.id === r.headers['x-event-id']));
      assert.ok(JSON.parse(r.rawBody).bundle !== undefined);
    }
    for (const r of receiver.at('/v2')) {
      assert.equal(r.headers['x-signature-sha256'], undefined);
      assert.deepEqual(Object.keys(JSON.parse(r.rawBody)), ['iccid', 'alertType', 'bundle']);
    }
    await eventually(async () => {
      const all = [...(await deliveries(t, v2.apiKey)), ...(await deliveries(t, v3.apiKey))];
      return all.length === 6 && all.every((d) => d.status === 'delivered' && d.attemptCount === 1)
        ? true
        : undefined;
    });
  });
});
