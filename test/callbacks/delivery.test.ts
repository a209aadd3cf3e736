import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES, eventually, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { verifyCallbackSignature } from '../../src/verify.js';
import { startReceiver } from '../receiver.js';
import type { Receiver } from '../receiver.js';
import { deliveries, oneEvent, recordUsage, snapshot, workerFor } from './fixtures.js';
import {
  rotateApiKey,
  updateOrganisationSettings,
} from '../../src/domain/organisations/organisation-changes.js';
import type { CallbackWorker } from '../../src/workers/callback-delivery.js';
import type { CallbackTransport, SendOutcome } from '../../src/callbacks/http-sender.js';

for (const kind of DATABASES) {
  describe(`usage callback delivery [${kind}]`, () => {
    let t: TestApp;
    let receiver: Receiver;
    let worker: CallbackWorker;
    let v2: TestOrg;
    let v3: TestOrg;

    before(async () => {
      receiver = await startReceiver();
      t = await startTestApp(kind, {
        callbackRetryScheduleSeconds: [0.05, 0.05],
        callbackWorkerIntervalMs: 20,
        // Long enough that no answer is late on a loaded machine (a late answer is sent again);
        // the timeout test runs its own worker with a short one.
        callbackTimeoutMs: 10_000,
        // One organisation may fill the worker here (the stop test wants every slot under way);
        // the cap per organisation has its own test (fairness.test.ts).
        callbackConcurrency: 16,
        callbackOrgConcurrency: 16,
        // A send that times out on a loaded machine backs the endpoint off; never for long here.
        callbackBackoffMaxSeconds: 1,
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

    it('sends V2 reduced and V3 full signed bodies with stable event headers', async () => {
      const a = snapshot({ usedBytes: 600_000_000 });
      await recordUsage(t, v2.id, a, 0, { firstUse: true });
      await recordUsage(t, v3.id, a, 0, { firstUse: true });
      await eventually(async () =>
        receiver.at('/v2').length === 3 && receiver.at('/v3').length === 3 ? true : undefined,
      );
      for (const r of receiver.at('/v3')) {
        const signature = String(r.headers['x-signature-sha256']);
        assert.ok(verifyCallbackSignature(r.rawBody, signature, v3.apiKey));
        assert.equal(verifyCallbackSignature(r.rawBody, signature, v2.apiKey), false);
        const body = JSON.parse(r.rawBody);
        assert.deepEqual(Object.keys(body.bundle), [
          'id',
          'reference',
          'name',
          'description',
          'initialQuantity',
          'remainingQuantity',
          'startTime',
          'endTime',
          'unlimited',
        ]);
      }
      for (const r of receiver.at('/v2')) {
        assert.equal(r.headers['x-signature-sha256'], undefined);
        const body = JSON.parse(r.rawBody);
        assert.deepEqual(Object.keys(body), ['iccid', 'alertType', 'bundle']);
        assert.deepEqual(Object.keys(body.bundle), [
          'id',
          'name',
          'initialQuantity',
          'remainingQuantity',
          'startTime',
          'endTime',
        ]);
      }
      const listed = await settled(v3, 'delivered');
      assert.equal(listed.length, 3);
      assert.deepEqual(
        new Set(receiver.at('/v3').map((r) => r.headers['x-event-id'])),
        new Set(listed.map((d) => d.id)),
      );
    });
    async function detail(org: TestOrg, id: string) {
      const res = await t.request(org.apiKey, { method: 'GET', url: `/v2.1/callbacks/${id}` });
      assert.equal(res.statusCode, 200);
      return res.json() as {
        status: string;
        attemptCount: number;
        nextAttemptAt: string;
        attempts: {
          attemptNo: number;
          statusCode: number;
          error: string;
          latencyMs: number;
          responseSnippet: string;
        }[];
      };
    }

    async function settled(org: TestOrg, status: string) {
      return eventually(
        async () => {
          const list = await deliveries(t, org.apiKey);
          return list.length > 0 && list.every((d) => d.status === status) ? list : undefined;
        },
        10_000,
        `deliveries ${status}`,
      );
    }

    it('retries a receiver that answers 500 twice and records exactly three attempts', async () => {
      const org = await t.createOrg({
        callbackUrl: `${receiver.url}/flaky`,
        callbackVersion: 'V3',
      });
      receiver.behave('/flaky', { statuses: [500, 500], status: 200 });
      await oneEvent(t, org.id);
      const [d] = await settled(org, 'delivered');
      assert.ok(d);
      const got = receiver.at('/flaky');
      assert.equal(got.length, 3);
      assert.equal(new Set(got.map((r) => r.headers['x-event-id'])).size, 1);
      assert.deepEqual(
        got.map((r) => r.headers['x-delivery-attempt']),
        ['1', '2', '3'],
      );
      assert.deepEqual(
        got.map((r) => r.rawBody),
        [got[0]?.rawBody, got[0]?.rawBody, got[0]?.rawBody],
      );
      const shown = await detail(org, d.id);
      assert.equal(shown.attemptCount, 3);
      assert.deepEqual(
        shown.attempts.map((a) => a.statusCode),
        [500, 500, 200],
      );
      assert.deepEqual(
        shown.attempts.map((a) => a.attemptNo),
        [1, 2, 3],
      );
      assert.equal(shown.attempts[0]?.responseSnippet, 'status 500');
    });

    it('marks a delivery failed when the schedule runs out, and a resend then delivers it', async () => {
      const org = await t.createOrg({ callbackUrl: `${receiver.url}/down`, callbackVersion: 'V2' });
      receiver.behave('/down', { status: 503 });
      await oneEvent(t, org.id);
      const [d] = await settled(org, 'failed');
      assert.ok(d);
      assert.equal(receiver.at('/down').length, 3); // schedule of two waits: three attempts
      receiver.behave('/down', { status: 204 });
      const resent = await t.request(org.apiKey, {
        method: 'POST',
        url: `/v2.1/callbacks/${d.id}/resend`,
      });
      assert.equal(resent.statusCode, 202);
      assert.equal(resent.json().status, 'pending');
      await settled(org, 'delivered');
      const shown = await detail(org, d.id);
      assert.deepEqual(
        shown.attempts.map((a) => a.statusCode),
        [503, 503, 503, 204],
      );
      assert.equal(receiver.at('/down').at(-1)?.headers['x-delivery-attempt'], '4');
    });

    it('honours Retry-After on 429 and waits for the clock', async () => {
      const org = await t.createOrg({ callbackUrl: `${receiver.url}/busy`, callbackVersion: 'V2' });
      receiver.behave('/busy', { statuses: [429], status: 200, retryAfter: '120' });
      await oneEvent(t, org.id);
      const [d] = await eventually(async () => {
        const list = await deliveries(t, org.apiKey);
        return list[0]?.attemptCount === 1 && list[0].status === 'pending' ? list : undefined;
      });
      assert.ok(d);
      const shown = await detail(org, d.id);
      const wait = Date.parse(shown.nextAttemptAt) - t.clock.now().getTime();
      assert.ok(wait > 100_000 && wait <= 120_000, `next attempt in ${wait} ms`);
      t.clock.advance(121);
      await settled(org, 'delivered');
      assert.equal(receiver.at('/busy').length, 2);
    });

    it('records redirects and timeouts as failed attempts, never following a redirect', async () => {
      const org = await t.createOrg({
        callbackUrl: `${receiver.url}/moved`,
        callbackVersion: 'V2',
      });
      receiver.behave('/moved', { redirectTo: `${receiver.url}/elsewhere` });
      await oneEvent(t, org.id);
      const [d] = await settled(org, 'failed');
      assert.ok(d);
      assert.equal(receiver.at('/elsewhere').length, 0);
      const shown = await detail(org, d.id);
      assert.equal(shown.attempts[0]?.statusCode, 302);
      assert.match(shown.attempts[0]?.error ?? '', /redirect to .*\/elsewhere not followed/);

      const slow = await t.createOrg({
        callbackUrl: `${receiver.url}/slow`,
        callbackVersion: 'V2',
      });
      // The receiver never answers while held: each attempt ends by the sender's timeout, 400 ms
      // for a worker of its own.
      await worker.stop();
      const impatient = workerFor({
        ...t,
        deps: { ...t.deps, config: { ...t.deps.config, callbackTimeoutMs: 400 } },
      });
      impatient.start();
      const release = receiver.hold();
      await oneEvent(t, slow.id);
      const [late] = await settled(slow, 'failed').finally(async () => {
        release();
        await impatient.stop();
        worker = workerFor(t);
        worker.start();
      });
      assert.ok(late);
      const timedOut = await detail(slow, late.id);
      assert.equal(timedOut.attempts.length, 3);
      for (const a of timedOut.attempts) {
        assert.equal(a.statusCode, 0);
        assert.match(a.error, /no complete response within 400 ms/);
        assert.ok(a.latencyMs >= 390 && a.latencyMs < 5000, `latency ${a.latencyMs}`);
      }
    });

    it('keeps events of an organisation without a callback URL as undeliverable', async () => {
      const org = await t.createOrg({ callbackVersion: 'V3' });
      await oneEvent(t, org.id);
      const [d] = await deliveries(t, org.apiKey);
      assert.equal(d?.status, 'undeliverable');
      assert.ok(d);
      const refused = await t.request(org.apiKey, {
        method: 'POST',
        url: `/v2.1/callbacks/${d.id}/resend`,
      });
      assert.equal(refused.statusCode, 400);
      assert.match(refused.json().message, /callbackUrl/);
      const orgDeps = {
        db: t.deps.store.db,
        clock: t.deps.clock,
        random: t.deps.random,
        cipher: t.deps.cipher,
        apiKeys: t.deps.apiKeys,
      };
      await updateOrganisationSettings(orgDeps, org.id, { callbackUrl: `${receiver.url}/late` });
      const resent = await t.request(org.apiKey, {
        method: 'POST',
        url: `/v2.1/callbacks/${d.id}/resend`,
      });
      assert.equal(resent.statusCode, 202);
      await settled(org, 'delivered');
      assert.equal(receiver.at('/late').length, 1);
    });

    it('signs with the new API key after a rotation', async () => {
      const org = await t.createOrg({
        callbackUrl: `${receiver.url}/rotated`,
        callbackVersion: 'V3',
      });
      await oneEvent(t, org.id);
      await settled(org, 'delivered');
      const orgDeps = {
        db: t.deps.store.db,
        clock: t.deps.clock,
        random: t.deps.random,
        cipher: t.deps.cipher,
        apiKeys: t.deps.apiKeys,
      };
      const { apiKey: newKey } = await rotateApiKey(orgDeps, org.id);
      await recordUsage(t, org.id, snapshot({ usedBytes: 10_000_000 }), 0);
      await eventually(async () => (receiver.at('/rotated').length === 2 ? true : undefined));
      const [before, afterRotation] = receiver.at('/rotated');
      assert.ok(before && afterRotation);
      const sig = (r: typeof before) => String(r.headers['x-signature-sha256']);
      assert.ok(verifyCallbackSignature(before.rawBody, sig(before), org.apiKey));
      assert.ok(verifyCallbackSignature(afterRotation.rawBody, sig(afterRotation), newKey));
      assert.equal(
        verifyCallbackSignature(afterRotation.rawBody, sig(afterRotation), org.apiKey),
        false,
      );
    });

    it('keeps a lease under way while the simulated clock jumps ahead', async () => {
      await worker.stop();
      const org = await t.createOrg({
        callbackUrl: `${receiver.url}/leased`,
        callbackVersion: 'V2',
      });
      await oneEvent(t, org.id);
      // Instance A's receiver answers only when the test lets it.
      let answer: (outcome: SendOutcome) => void = () => undefined;
      let sentByA = 0;
      const gated: CallbackTransport = {
        send: () => {
          sentByA += 1;
          return new Promise((resolve) => {
            answer = resolve;
          });
        },
        close: () => undefined,
      };
      const a = workerFor(t, { transport: gated, instanceId: 'a' });
      const aDone = a.drain();
      await eventually(async () => (sentByA === 1 ? true : undefined));

      // Mid-delivery, the simulated clock moves a month ahead; instance B runs a full turn.
      t.clock.advance(30 * 86_400);
      const b = workerFor(t, { instanceId: 'b' });
      await b.drain();
      assert.equal(receiver.at('/leased').length, 0, 'B sent an event A is delivering');
      assert.equal((await deliveries(t, org.apiKey))[0]?.status, 'delivering');

      answer({
        statusCode: 204,
        latencyMs: 1,
        error: null,
        responseSnippet: '',
        retryAfter: undefined,
      });
      await aDone;
      const [d] = await deliveries(t, org.apiKey);
      assert.equal(d?.status, 'delivered');
      assert.equal(d?.attemptCount, 1);
      assert.equal(sentByA, 1);
      assert.equal(receiver.at('/leased').length, 0);
      worker = workerFor(t);
      worker.start();
    });

    it('takes over an event whose worker died mid-delivery once its lease lapses', async () => {
      const org = await t.createOrg({
        callbackUrl: `${receiver.url}/orphan`,
        callbackVersion: 'V2',
      });
      await worker.stop();
      await oneEvent(t, org.id);
      await oneEvent(t, org.id);
      // Leases run on real time: one lapsed a second ago; one so far ahead that no worker can
      // have granted it (written against a simulated clock) counts as lapsed too.
      const [lapsed, farAhead] = await t.deps.store.db
        .selectFrom('callback_events')
        .select('id')
        .where('organisation_id', '=', org.id)
        .execute();
      assert.ok(lapsed && farAhead);
      for (const [row, until] of [
        [lapsed, new Date(Date.now() - 1000)],
        [farAhead, new Date(Date.now() + 30 * 86_400_000)],
      ] as const) {
        await t.deps.store.db
          .updateTable('callback_events')
          .set({
            status: 'delivering',
            locked_by: 'crashed-instance',
            locked_until: until.toISOString(),
          })
          .where('id', '=', row.id)
          .execute();
      }
      worker = workerFor(t);
      worker.start();
      await eventually(async () => {
        const list = await deliveries(t, org.apiKey);
        return list.length === 2 && list.every((d) => d.status === 'delivered') ? true : undefined;
      });
      assert.equal(receiver.at('/orphan').length, 2);
    });

    it('on stop, finishes sends under way and hands unsent claims back', async () => {
      await worker.stop();
      const org = await t.createOrg({
        callbackUrl: `${receiver.url}/drain`,
        callbackVersion: 'V2',
      });
      const concurrency = t.config.callbackConcurrency;
      const events = concurrency + 4;
      // One eSIM each: events of one eSIM go one at a time, and this wants many sends at once.
      for (let i = 0; i < events; i += 1) {
        const iccid = `8944000000000${String(100_000 + i)}`;
        await recordUsage(t, org.id, snapshot({ usedBytes: 10_000_000 }), 0, { iccid });
      }
      // The receiver answers only when the test lets it, so which sends are under way when stop()
      // is called is decided here, not by how fast a loaded machine runs a real delay.
      const answers: ((outcome: SendOutcome) => void)[] = [];
      const delivered: SendOutcome = {
        statusCode: 204,
        latencyMs: 1,
        error: null,
        responseSnippet: '',
        retryAfter: undefined,
      };
      // A send started after stop() is answered at once and counted: it fails the test below
      // instead of holding stop() for ever.
      let stopCalled = false;
      let startedAfterStop = 0;
      const gated: CallbackTransport = {
        send: () => {
          if (!stopCalled) return new Promise((resolve) => answers.push(resolve));
          startedAfterStop += 1;
          return Promise.resolve(delivered);
        },
        close: () => undefined,
      };
      const stopping = workerFor(t, { transport: gated });
      stopping.start();
      await eventually(async () => (answers.length === concurrency ? true : undefined));
      const stopped = stopping.stop();
      stopCalled = true;
      for (const answer of answers) answer(delivered);
      await stopped;
      assert.equal(startedAfterStop, 0, 'no send started after stop()');
      assert.equal(answers.length, concurrency);
      const list = await deliveries(t, org.apiKey);
      const count = (status: string) => list.filter((d) => d.status === status).length;
      assert.equal(count('delivered'), concurrency);
      assert.equal(count('delivering'), 0);
      assert.equal(count('pending'), events - concurrency);
      assert.ok(list.every((d) => d.attemptCount === (d.status === 'delivered' ? 1 : 0)));
      worker = workerFor(t);
      worker.start();
      await settled(org, 'delivered');
      // Delivery is at least once: a send whose answer comes after the timeout is retried and
      // reaches the receiver twice, with the same X-Event-Id.
      // What must hold: exactly the events handed back are sent, each under its own id, and
      // none of those the stopping worker delivered is sent again.
      const pendingIds = new Set(list.filter((d) => d.status === 'pending').map((d) => d.id));
      const sentIds = new Set(receiver.at('/drain').map((r) => String(r.headers['x-event-id'])));
      assert.deepEqual([...sentIds].sort(), [...pendingIds].sort());
    });
  });
}
