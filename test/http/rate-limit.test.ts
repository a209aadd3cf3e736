import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { buildApp } from '../../src/app.js';
import { createRateLimits } from '../../src/rate-limits/limiter.js';
import type { RateLimits } from '../../src/rate-limits/limiter.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// Rate limits: per API key with X-RateLimit-* headers and 429 + Retry-After, per client address
// for failed authentication, off by default in simulator mode, and one budget across two
// instances that share Redis.

const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

async function redisReachable(): Promise<boolean> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

const redisUp = await redisReachable();
if (!redisUp) {
  const message = `Redis at ${REDIS_URL} is not reachable: the shared rate-limit suite is SKIPPED.`;
  if (process.env['CI'] === 'true') throw new Error(`${message} CI requires Redis.`);
  process.stderr.write(`!! ${message}\n`);
}

const LIMITS = {
  rateLimitEnabled: true,
  rateLimitPoints: 6,
  // Long windows: a burst in a test never straddles two of them.
  rateLimitWindowSeconds: 120,
  rateLimitCosts: { 'GET /catalogue': 3 },
  rateLimitAuthFailures: 5,
  rateLimitAuthWindowSeconds: 120,
};

const organisation = (t: TestApp, apiKey: string, remoteAddress = '198.51.100.1') =>
  t.request(apiKey, { method: 'GET', url: '/v2.1/organisation', remoteAddress });

for (const kind of DATABASES) {
  describe(`rate limits on one instance [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      t = await startTestApp(kind, LIMITS);
      org = await t.createOrg();
    });
    after(() => t.close());

    it('spends the key’s budget, says so in headers, and answers 429 with Retry-After beyond it', async () => {
      const other = await t.createOrg();
      const started = Date.now();
      const remaining: string[] = [];
      for (let i = 0; i < 6; i += 1) {
        const res = await organisation(t, org.apiKey);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['x-ratelimit-limit'], '6');
        assert.equal(res.headers['x-ratelimit-cost'], '1');
        remaining.push(String(res.headers['x-ratelimit-remaining']));
        const reset = Date.parse(String(res.headers['x-ratelimit-reset']));
        assert.ok(reset > started && reset <= Date.now() + 120_000, 'reset within the window');
      }
      assert.deepEqual(remaining, ['5', '4', '3', '2', '1', '0']);
      const refused = await organisation(t, org.apiKey);
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.json().code, 'rate_limited');
      assert.match(refused.json().message, /rate limit exceeded/);
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(
        Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 120,
        String(retryAfter),
      );
      assert.equal(refused.headers['x-ratelimit-remaining'], '0');
      // Another organisation has its own budget.
      const fine = await organisation(t, other.apiKey);
      assert.equal(fine.statusCode, 200);
      assert.equal(fine.headers['x-ratelimit-remaining'], '5');
    });

    it('charges the configured cost per route', async () => {
      const buyer = await t.createOrg();
      const first = await t.request(buyer.apiKey, { method: 'GET', url: '/v2.1/catalogue' });
      assert.equal(first.statusCode, 200);
      assert.equal(first.headers['x-ratelimit-cost'], '3');
      assert.equal(first.headers['x-ratelimit-remaining'], '3');
      const second = await t.request(buyer.apiKey, { method: 'GET', url: '/v2.1/catalogue' });
      assert.equal(second.headers['x-ratelimit-remaining'], '0');
      const third = await t.request(buyer.apiKey, { method: 'GET', url: '/v2.1/catalogue' });
      assert.equal(third.statusCode, 429);
    });

    it('throttles a burst of bad keys from one address while other clients are unaffected', async () => {
      const guesser = '203.0.113.66';
      const bystander = await t.createOrg();
      for (let i = 0; i < 5; i += 1) {
        const res = await organisation(t, `esim_guess${i}`, guesser);
        assert.equal(res.statusCode, 403, `guess ${i}`);
      }
      const missing = await t.app.inject({
        method: 'GET',
        url: '/v2.1/organisation',
        remoteAddress: guesser,
      });
      assert.equal(missing.statusCode, 429, 'over the count of failures');
      assert.ok(Number(missing.headers['retry-after']) >= 1);
      assert.match(missing.json().message, /invalid API key from this address/);
      // From that address even a good key waits, or guessing would reveal the right one.
      assert.equal((await organisation(t, bystander.apiKey, guesser)).statusCode, 429);
      // Other addresses: a bad key is still a plain 403, a good key works.
      assert.equal((await organisation(t, 'esim_wrong', '203.0.113.67')).statusCode, 403);
      assert.equal((await organisation(t, bystander.apiKey, '203.0.113.68')).statusCode, 200);
      // Health checks and /_sim are outside the limits.
      const health = await t.app.inject({ method: 'GET', url: '/healthz', remoteAddress: guesser });
      assert.equal(health.statusCode, 200);
    });
  });

  describe(`rate limits in simulator mode [${kind}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(kind);
    });
    after(() => t.close());

    it('are off by default: no headers, no 429', async () => {
      assert.equal(t.config.rateLimitEnabled, false);
      const org = await t.createOrg();
      for (let i = 0; i < 40; i += 1) {
        const res = await organisation(t, org.apiKey);
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['x-ratelimit-limit'], undefined);
      }
      for (let i = 0; i < 20; i += 1) {
        assert.equal((await organisation(t, 'esim_bad')).statusCode, 403);
      }
    });
  });
}

describe('rate limits when Redis does not answer', () => {
  it('fall back to in-process budgets: requests are still limited, never failed', async () => {
    // Nothing listens on port 1: every Redis command fails at once.
    const t = await startTestApp('sqlite', { ...LIMITS, redisUrl: 'redis://127.0.0.1:1' });
    try {
      const org = await t.createOrg();
      const statuses: number[] = [];
      for (let i = 0; i < 7; i += 1) statuses.push((await organisation(t, org.apiKey)).statusCode);
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429]);
      for (let i = 0; i < 5; i += 1) {
        assert.equal((await organisation(t, 'esim_guess', '203.0.113.90')).statusCode, 403);
      }
      assert.equal((await organisation(t, 'esim_guess', '203.0.113.90')).statusCode, 429);
    } finally {
      await t.close();
    }
  });
});

describe('rate limits across two instances sharing Redis', { skip: !redisUp }, () => {
  let t: TestApp;
  let second: FastifyInstance;
  let secondLimits: RateLimits;
  const urls: string[] = [];

  before(async () => {
    const shared = {
      ...LIMITS,
      redisUrl: REDIS_URL,
      redisKeyPrefix: `esim-test-${randomBytes(6).toString('hex')}:`,
    };
    t = await startTestApp('sqlite', shared);
    // A second instance: its own process state and Redis connection, the same database.
    secondLimits = await createRateLimits(t.config);
    second = await buildApp({ ...t.deps, rateLimits: secondLimits }, { logLevel: 'silent' });
    await Promise.all([t.deps.rateLimits?.ready(), secondLimits.ready()]);
    for (const app of [t.app, second]) urls.push(await app.listen({ port: 0, host: '127.0.0.1' }));
  });
  after(async () => {
    await second.close();
    await secondLimits.close();
    await t.close();
  });

  const get = (base: string, apiKey: string) =>
    fetch(`${base}/v2.1/organisation`, { headers: { 'x-api-key': apiKey } });

  it('spends one budget, whichever instance answers', async () => {
    const org = await t.createOrg();
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 8; i += 1) {
      const res = await get(urls[i % 2] ?? '', org.apiKey);
      await res.arrayBuffer();
      statuses.push(res.status);
      remaining.push(res.headers.get('x-ratelimit-remaining') ?? '');
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429, 429]);
    assert.deepEqual(remaining, ['5', '4', '3', '2', '1', '0', '0', '0']);
  });

  it('counts failed authentications from one address across instances', async () => {
    const org = await t.createOrg();
    // Both instances see this test's requests from 127.0.0.1.
    for (let i = 0; i < 5; i += 1) {
      const res = await get(urls[i % 2] ?? '', `esim_guess${i}`);
      await res.arrayBuffer();
      assert.equal(res.status, 403);
    }
    for (const base of urls) {
      const res = await get(base, org.apiKey);
      assert.equal(res.status, 429, base);
      assert.ok(Number(res.headers.get('retry-after')) >= 1);
      assert.match(((await res.json()) as { message: string }).message, /from this address/);
    }
  });
});
