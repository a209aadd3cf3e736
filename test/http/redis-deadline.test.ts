import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { DATABASES, eventually, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { ManualWallClock } from '../manual-wall-clock.js';
import { parseExposition } from '../prometheus-text.js';

// A Redis that is connected but silent (paused, as a partition or a failover leaves it) must not
// hang the API: each call has a deadline, the circuit breaker then keeps calls away from it, the
// instance answers from its own counters, /readyz says "degraded", and the metrics count it. The
// Redis here is one this test starts on a spare port and pauses with SIGSTOP. The breaker's open
// period runs on the service's wall clock, which this test moves: a slow machine cannot end it
// (and let a probe through) in the middle of the burst.

async function sparePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function startRedis(): Promise<{ url: string; process: ChildProcess }> {
  const port = await sparePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  await eventually(
    async () => {
      const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        return (await client.ping()) === 'PONG' ? true : undefined;
      } finally {
        client.disconnect();
      }
    },
    30_000,
    'redis-server to answer',
  );
  return { url, process: child };
}

const redisInstalled = await new Promise<boolean>((resolve) => {
  const probe = spawn('redis-server', ['--version'], { stdio: 'ignore' });
  probe.once('error', () => resolve(false));
  probe.once('exit', (code) => resolve(code === 0));
});
if (!redisInstalled) {
  const message = 'redis-server is not installed: the Redis deadline suite is SKIPPED.';
  if (process.env['CI'] === 'true') throw new Error(`${message} CI requires it.`);
  process.stderr.write(`!! ${message}\n`);
}

for (const kind of DATABASES) {
  describe(`a silent Redis [${kind}]`, { skip: !redisInstalled }, () => {
    let redis: { url: string; process: ChildProcess };
    let t: TestApp;
    let org: TestOrg;
    let paused = false;
    const wall = new ManualWallClock();

    before(async () => {
      redis = await startRedis();
      t = await startTestApp(
        kind,
        {
          rateLimitEnabled: true,
          rateLimitPoints: 1000,
          rateLimitWindowSeconds: 600,
          redisUrl: redis.url,
          redisTimeoutMs: 200,
          redisBreakerFailures: 3,
          redisBreakerOpenMs: 1000,
        },
        { wallClock: wall },
      );
      await t.deps.rateLimits?.ready();
      org = await t.createOrg();
    });
    after(async () => {
      if (paused) redis.process.kill('SIGCONT');
      await t.close();
      redis.process.kill('SIGTERM');
    });

    const scrape = async () => {
      const res = await t.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(res.statusCode, 200);
      return parseExposition(res.body);
    };
    const organisation = () => t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' });

    // Without a deadline the first request waits as long as Redis is paused: the test's own
    // timeout then fails it.
    it(
      'answers every request while Redis is paused, says degraded, and recovers',
      { timeout: 60_000 },
      async () => {
        const shared = await organisation();
        assert.equal(shared.statusCode, 200);
        assert.equal(shared.headers['x-ratelimit-remaining'], '999');
        const readyBefore = await t.app.inject({ method: 'GET', url: '/readyz' });
        assert.deepEqual(readyBefore.json(), { status: 'ready', dependencies: { redis: 'ok' } });

        redis.process.kill('SIGSTOP');
        paused = true;
        // Sequential, then a concurrent burst: all answered while Redis is still paused.
        for (let i = 0; i < 5; i += 1) assert.equal((await organisation()).statusCode, 200);
        const burst = await Promise.all(Array.from({ length: 30 }, () => organisation()));
        assert.deepEqual(new Set(burst.map((r) => r.statusCode)), new Set([200]));
        // The in-process counters keep limiting: remaining falls with each request answered.
        const remaining = Number((await organisation()).headers['x-ratelimit-remaining']);
        assert.ok(remaining < 1000 && remaining <= 1000 - 36, String(remaining));

        const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
        assert.equal(ready.statusCode, 200);
        assert.deepEqual(ready.json(), { status: 'degraded', dependencies: { redis: 'degraded' } });
        const metrics = await scrape();
        assert.equal(metrics.value('esim_redis_breaker_open'), 1);
        const fallbacks = Object.fromEntries(
          ['timeout', 'error', 'open'].map((reason) => [
            reason,
            metrics.value('esim_redis_fallbacks_total', { reason }),
          ]),
        );
        // Three calls waited out their deadline and opened the breaker; once open, it answered
        // the rest, the burst among them, without sending anything to Redis.
        assert.equal(fallbacks['timeout'], 3, JSON.stringify(fallbacks));
        assert.equal(fallbacks['error'], 0, JSON.stringify(fallbacks));
        assert.ok((fallbacks['open'] ?? 0) >= 33, JSON.stringify(fallbacks));
        assert.equal(redis.process.exitCode, null, 'Redis still paused, not gone');

        redis.process.kill('SIGCONT');
        paused = false;
        // The open period ends; the next call is the probe that finds Redis answering again (a
        // probe that missed its deadline on a slow machine opens another period: moved past too).
        await eventually(
          async () => {
            wall.advance(1000);
            const res = await t.app.inject({ method: 'GET', url: '/readyz' });
            return res.json().status === 'ready' ? true : undefined;
          },
          30_000,
          '/readyz to be ready again',
        );
        assert.equal((await scrape()).value('esim_redis_breaker_open'), 0);
        // Back on the shared budget: the paused period spent from this instance's counters,
        // and only the calls sent before the breaker opened may have reached Redis late.
        const back = Number((await organisation()).headers['x-ratelimit-remaining']);
        assert.ok(back >= 990 && back <= 998, String(back));
      },
    );
  });
}
