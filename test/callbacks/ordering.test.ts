import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { CallbackWorker } from '../../src/workers/callback-delivery.js';
import { createCallbackWorker } from '../../src/workers/callback-delivery.js';
import { DATABASES, eventually, startTestApp } from '../harness.js';
import type { TestApp } from '../harness.js';
import type { Receiver, Received } from '../receiver.js';
import { startReceiver } from '../receiver.js';
import { deliveries, recordUsage, snapshot, workerFor } from './fixtures.js';

// Callbacks in order per eSIM: an eSIM's next event is not sent until the previous one is
// acknowledged or has failed for good; different eSIMs deliver in parallel, on several
// instances too. One usage report that passes 1 %, 50 % and 80 % at once stores three events in
// one transaction: exactly the case where a receiver saw 80 % before 50 %.

const GB = 1_000_000_000;

/** A distinct ICCID per index (the outbox does not check it). */
const iccidOf = (i: number): string => `89440000000000${String(100 + i).padStart(5, '0')}`;

interface Arrival {
  readonly iccid: string;
  readonly threshold: number;
  readonly instance: string;
  readonly received: Received;
}

function arrivals(receiver: Receiver): Arrival[] {
  return receiver.at('/hook').map((r) => {
    const body = JSON.parse(r.rawBody) as { iccid: string; threshold?: number };
    return {
      iccid: body.iccid,
      threshold: body.threshold ?? -1,
      instance: /instance\/(\S+)/.exec(String(r.headers['user-agent']))?.[1] ?? '',
      received: r,
    };
  });
}

/** Per eSIM: thresholds in arrival order, and no request sent before the previous one answered. */
function assertInOrderOneAtATime(list: readonly Arrival[], expected: readonly number[]): void {
  const byIccid = new Map<string, Arrival[]>();
  for (const a of list) byIccid.set(a.iccid, [...(byIccid.get(a.iccid) ?? []), a]);
  for (const [iccid, items] of byIccid) {
    const acknowledged = items.filter((a) => a.received.status < 300);
    assert.deepEqual(
      acknowledged.map((a) => a.threshold),
      expected,
      `thresholds of ${iccid} in order`,
    );
    for (let i = 1; i < items.length; i += 1) {
      const previous = items[i - 1];
      const current = items[i];
      if (previous === undefined || current === undefined) continue;
      assert.ok(
        current.received.receivedAt >= previous.received.respondedAt,
        `${iccid}: request ${i} sent before request ${i - 1} was answered`,
      );
    }
  }
}

/** Usage from 0 to 85 % of a 1 GB bundle on each eSIM: 1, 50 and 80 % events, one transaction each. */
async function threeEventsEach(t: TestApp, orgId: string, esims: number): Promise<void> {
  for (let i = 0; i < esims; i += 1) {
    await recordUsage(t, orgId, snapshot({ initialBytes: GB, usedBytes: 0.85 * GB }), 0, {
      iccid: iccidOf(i),
    });
  }
}

for (const kind of DATABASES) {
  describe(`callbacks in order per eSIM [${kind}]`, () => {
    let t: TestApp;
    let receiver: Receiver;
    const workers: CallbackWorker[] = [];

    before(async () => {
      receiver = await startReceiver();
      t = await startTestApp(kind, {
        callbackRetryScheduleSeconds: [60],
        callbackWorkerIntervalMs: 20,
        callbackConcurrency: 16,
      });
    });
    afterEach(async () => {
      await Promise.all(workers.splice(0).map((w) => w.stop()));
      receiver.received.length = 0;
      receiver.behave('/hook', {});
    });
    after(async () => {
      await t.close();
      await receiver.close();
    });

    it('delivers each eSIM in order, one at a time, different eSIMs in parallel', async () => {
      const org = await t.createOrg({ callbackUrl: `${receiver.url}/hook`, callbackVersion: 'V3' });
      receiver.behave('/hook', { delayMs: 40 });
      await threeEventsEach(t, org.id, 6);
      const worker = workerFor(t);
      await worker.drain();
      const list = arrivals(receiver);
      assert.equal(list.length, 18);
      assertInOrderOneAtATime(list, [1, 50, 80]);
      // Parallel across eSIMs: some request began while another eSIM's was still unanswered.
      const overlapping = list.some((a) =>
        list.some(
          (b) =>
            a.iccid !== b.iccid &&
            b.received.receivedAt >= a.received.receivedAt &&
            b.received.receivedAt < a.received.respondedAt,
        ),
      );
      assert.ok(overlapping, 'different eSIMs are delivered concurrently');
    });

    it('holds an eSIM’s next event while the previous waits for a retry, then sends them in order', async () => {
      const org = await t.createOrg({ callbackUrl: `${receiver.url}/hook`, callbackVersion: 'V3' });
      receiver.behave('/hook', { statuses: [500] });
      await recordUsage(t, org.id, snapshot({ initialBytes: GB, usedBytes: 0.85 * GB }), 0, {
        iccid: iccidOf(50),
      });
      const worker = workerFor(t);
      await worker.drain();
      assert.deepEqual(
        arrivals(receiver).map((a) => [a.threshold, a.received.status]),
        [[1, 500]],
        'only the first event was tried',
      );
      const waiting = await deliveries(t, org.apiKey);
      assert.equal(waiting.filter((d) => d.status === 'pending').length, 3);
      assert.equal(waiting.filter((d) => d.attemptCount === 0).length, 2);
      t.clock.advance(90); // past the retry (60 s with up to 20 % jitter)
      await worker.drain();
      assert.deepEqual(
        arrivals(receiver).map((a) => [a.threshold, a.received.status]),
        [
          [1, 500],
          [1, 200],
          [50, 200],
          [80, 200],
        ],
      );
      assertInOrderOneAtATime(arrivals(receiver), [1, 50, 80]);
    });

    it('releases the next event once the previous has failed for good', async () => {
      const org = await t.createOrg({ callbackUrl: `${receiver.url}/hook`, callbackVersion: 'V3' });
      receiver.behave('/hook', { statuses: [500, 500] });
      await recordUsage(t, org.id, snapshot({ initialBytes: GB, usedBytes: 0.85 * GB }), 0, {
        iccid: iccidOf(60),
      });
      const worker = workerFor(t);
      await worker.drain();
      t.clock.advance(90);
      await worker.drain(); // the second attempt fails too: the schedule is exhausted
      const list = await deliveries(t, org.apiKey);
      assert.deepEqual(list.map((d) => d.status).sort(), ['delivered', 'delivered', 'failed']);
      assert.deepEqual(
        arrivals(receiver).map((a) => [a.threshold, a.received.status]),
        [
          [1, 500],
          [1, 500],
          [50, 200],
          [80, 200],
        ],
      );
    });

    it('never sends a resent older event while a later one of its eSIM is under way', async () => {
      const org = await t.createOrg({ callbackUrl: `${receiver.url}/hook`, callbackVersion: 'V3' });
      await recordUsage(t, org.id, snapshot({ initialBytes: GB, usedBytes: 0.015 * GB }), 0, {
        iccid: iccidOf(70),
      });
      const first = workerFor(t);
      await first.drain();
      const [delivered] = await deliveries(t, org.apiKey);
      assert.equal(delivered?.status, 'delivered');
      // A later event, held by the receiver; the first one is resent while it is under way.
      const release = receiver.hold();
      await recordUsage(t, org.id, snapshot({ initialBytes: GB, usedBytes: 0.6 * GB }), 0.02 * GB, {
        iccid: iccidOf(70),
      });
      const worker = workerFor(t);
      workers.push(worker);
      worker.start();
      await eventually(async () => (arrivals(receiver).length >= 2 ? true : undefined), 10_000);
      const resend = await t.request(org.apiKey, {
        method: 'POST',
        url: `/v2.1/callbacks/${delivered?.id ?? ''}/resend`,
      });
      assert.equal(resend.statusCode, 202, resend.body);
      // Another instance runs full turns meanwhile: the resent event is due but must wait.
      const other = workerFor(t, { instanceId: 'other' });
      workers.push(other);
      await other.drain();
      assert.equal(arrivals(receiver).length, 2, 'nothing sent while the later event is under way');
      release();
      await eventually(
        async () =>
          arrivals(receiver).filter((a) => a.received.status > 0).length >= 3 ? true : undefined,
        10_000,
        'the resend delivered',
      );
      const list = arrivals(receiver);
      const later = list[1];
      const resent = list[2];
      assert.equal(resent?.threshold, 1, 'the resent event is the 1 % one');
      assert.ok(
        (resent?.received.receivedAt ?? 0) >= (later?.received.respondedAt ?? Infinity),
        'the resent event waited for the one under way',
      );
    });

    it('keeps the order with two instances delivering from the same database', async () => {
      const org = await t.createOrg({ callbackUrl: `${receiver.url}/hook`, callbackVersion: 'V3' });
      receiver.behave('/hook', { delayMs: 15 });
      await threeEventsEach(t, org.id, 12);
      // Small batches (2 in flight, 4 claimed), so each instance leaves work for the other; no
      // cap per organisation below that, so the one organisation here is shared by both.
      const small = {
        ...t.deps,
        config: { ...t.config, callbackConcurrency: 2, callbackOrgConcurrency: 1024 },
      };
      const one = createCallbackWorker(small, { warn: () => undefined }, { instanceId: 'one' });
      const two = createCallbackWorker(small, { warn: () => undefined }, { instanceId: 'two' });
      workers.push(one, two);
      one.start();
      two.start();
      await eventually(
        async () => (arrivals(receiver).length >= 36 ? true : undefined),
        20_000,
        '36 deliveries',
      );
      const list = arrivals(receiver);
      assert.equal(list.length, 36, 'each event delivered once');
      assertInOrderOneAtATime(list, [1, 50, 80]);
      assert.deepEqual(
        [...new Set(list.map((a) => a.instance))].sort(),
        ['one', 'two'],
        'both instances delivered',
      );
    });
  });
}
