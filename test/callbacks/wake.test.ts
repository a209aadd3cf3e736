import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OutgoingCallback } from '../../src/callbacks/http-sender.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { ManualWallClock } from '../manual-wall-clock.js';
import { instantTransport, oneEvent, workerFor } from './fixtures.js';

// An idle delivery worker polls every CALLBACK_WORKER_INTERVAL_MS, but an event this process
// queues wakes it at once (after a few milliseconds for others to join the claim): a callback
// is not held back by the poll interval.

const POLL_MS = 60_000;

/** Lets the worker's promises run until `done` holds. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
}

for (const kind of DATABASES) {
  describe(`callback worker woken by a queued event [${kind}]`, () => {
    const wall = new ManualWallClock();
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      t = await startTestApp(kind, { callbackWorkerIntervalMs: POLL_MS }, { wallClock: wall });
      org = await t.createOrg({ callbackUrl: 'http://127.0.0.1:9/hook', callbackVersion: 'V3' });
    });
    after(async () => {
      await t.close();
    });

    it('starts a turn soon after an event is queued, not at the next poll', async () => {
      const sent: OutgoingCallback[] = [];
      const worker = workerFor(t, { transport: instantTransport(sent) });
      worker.start();
      wall.advance(0); // the first turn: nothing is due
      await until(() => wall.nextDue === POLL_MS); // idle until the poll

      await oneEvent(t, org.id);
      const due = wall.nextDue;
      assert.ok(due !== undefined && due <= 50, `the worker wakes in ${due} ms, not ${POLL_MS}`);
      wall.advance(due);
      await until(() => sent.length > 0);
      assert.equal(sent.length, 1);
      assert.match(sent[0]?.body.toString() ?? '', /Utilisation/);
      await worker.stop();
    });
  });
}
