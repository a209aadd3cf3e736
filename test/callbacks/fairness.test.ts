import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { DATABASES, eventually, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { startReceiver } from '../receiver.js';
import type { Receiver } from '../receiver.js';
import { createCallbackRetention } from '../../src/workers/callback-retention.js';
import type { CallbackWorker } from '../../src/workers/callback-delivery.js';
import { deliveries, recordUsage, snapshot, workerFor } from './fixtures.js';

// One organisation's flood of callbacks to an endpoint that never answers must not hold back
// another organisation's: claims go round the organisations, each with at most
// CALLBACK_ORG_CONCURRENCY deliveries claimed or in flight.

/** A server that accepts connections and never answers; counts them. */
interface Silent {
  readonly url: string;
  readonly open: Set<Socket>;
  /** The most connections open at once. */
  most: number;
  /** Resolves once `n` connections are open at once. */
  reaching(n: number): Promise<void>;
  /** Drops every open connection, unanswered. */
  dropAll(): void;
  close(): Promise<void>;
}

async function startSilent(): Promise<Silent> {
  const waiters: { n: number; resolve: () => void }[] = [];
  const open = new Set<Socket>();
  const silent: Silent = {
    url: '',
    open,
    most: 0,
    reaching: (n) =>
      new Promise((resolve) => {
        if (open.size >= n) resolve();
        else waiters.push({ n, resolve });
      }),
    dropAll: () => {
      for (const s of open) s.destroy();
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((socket) => {
    open.add(socket);
    silent.most = Math.max(silent.most, open.size);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => undefined);
    for (const w of waiters.splice(0)) {
      if (open.size >= w.n) w.resolve();
      else waiters.push(w);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(silent, { url: `http://127.0.0.1:${port}/never` });
}

/** Resolves with the first request the receiver gets at `path` (follows progress, no deadline). */
async function arrival(receiver: Receiver, path: string): Promise<{ receivedAt: number }> {
  for (;;) {
    const [first] = receiver.at(path);
    if (first !== undefined) return first;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const iccid = (n: number): string => `894400000000${String(n).padStart(7, '0')}`;
const PER_ORGANISATION = 4;

for (const kind of DATABASES) {
  describe(`fair delivery across organisations [${kind}]`, () => {
    let t: TestApp;
    let receiver: Receiver;
    let silent: Silent;
    let worker: CallbackWorker;
    let flooder: TestOrg;
    let other: TestOrg;

    before(async () => {
      receiver = await startReceiver();
      silent = await startSilent();
      t = await startTestApp(kind, {
        // The production timeout: a silent endpoint holds each of its sends for 10 s.
        callbackTimeoutMs: 10_000,
        callbackWorkerIntervalMs: 50,
        callbackOrgConcurrency: PER_ORGANISATION,
        callbackRetentionDays: 1,
      });
      flooder = await t.createOrg({ callbackUrl: silent.url, callbackVersion: 'V3' });
      other = await t.createOrg({ callbackUrl: `${receiver.url}/other`, callbackVersion: 'V3' });
      worker = workerFor(t);
    });
    after(async () => {
      await worker.stop();
      await silent.close();
      await t.close();
      await receiver.close();
    });

    it('a flood to a silent endpoint leaves another organisation callback delay under 2 s', async (ctx) => {
      // 200 callbacks queued for the flooder, each of its own eSIM, all due before the other's.
      for (let i = 0; i < 200; i += 1) {
        await recordUsage(t, flooder.id, snapshot({ usedBytes: 10_000_000 }), 0, {
          iccid: iccid(i),
        });
      }
      worker.start();
      // The flooder's sends are under way and hang: as many as its cap, no more.
      await silent.reaching(PER_ORGANISATION);

      const queuedAt = Date.now();
      await recordUsage(t, other.id, snapshot({ usedBytes: 10_000_000 }), 0, {
        iccid: iccid(9_999),
      });
      const received = await arrival(receiver, '/other');
      const delayMs = received.receivedAt - queuedAt;
      ctx.diagnostic(`the other organisation's callback arrived after ${delayMs} ms`);
      assert.ok(delayMs < 2000, `the other organisation's callback took ${delayMs} ms`);
      assert.ok(
        silent.most <= PER_ORGANISATION,
        `${silent.most} sends to the silent endpoint at once`,
      );
      const listed = await eventually(
        async () => {
          const list = await deliveries(t, other.apiKey);
          return list[0]?.status === 'delivered' ? list : undefined;
        },
        30_000,
        'the delivery recorded',
      );
      assert.equal(listed.length, 1);
      // The flooder's other callbacks are still queued, not lost.
      const flooded = await deliveries(t, flooder.apiKey, '?status=pending&perPage=100');
      assert.ok(flooded.length > 0);
    });

    it('delivered callbacks are deleted after the retention; queued ones are kept', async () => {
      // Stopping waits for the sends under way: the silent endpoint drops their connections, so
      // that they fail now instead of at their 10 s timeout.
      const stopped = worker.stop();
      silent.dropAll();
      await stopped;
      const before = await deliveries(t, other.apiKey);
      assert.equal(before.length, 1);
      t.clock.advance(2 * 86_400);
      const retention = createCallbackRetention(t.deps, {
        info: () => undefined,
        warn: () => undefined,
        error: () => undefined,
      });
      retention.start();
      try {
        await eventually(
          async () => ((await deliveries(t, other.apiKey)).length === 0 ? true : undefined),
          30_000,
          'the delivered callback pruned',
        );
      } finally {
        await retention.stop();
      }
      const res = await t.request(other.apiKey, {
        method: 'GET',
        url: `/v2.1/callbacks/${before[0]?.id ?? ''}`,
      });
      assert.equal(res.statusCode, 404);
      const flooded = await deliveries(t, flooder.apiKey, '?perPage=100');
      assert.ok(flooded.length > 0);
      assert.ok(flooded.every((d) => d.status === 'pending' || d.status === 'delivering'));
    });
  });
}
