import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.js';

// Request budgets: fixed windows per API key, and a count of failed authentications per client
// address. With REDIS_URL the counters live in Redis, so every instance spends from one budget;
// without it they live in the process (one instance). If Redis stops answering, each instance
// falls back to its own in-process counters (the insurance limiter) rather than refusing or
// waving every request through, and goes back to Redis when it answers again.
//
// Windows run on real time, not the simulator clock: they bound real traffic, and advancing the
// simulated clock must not refill anyone's budget.

export interface Decision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** When the current window ends and the budget is full again. */
  readonly resetAt: Date;
  /** Whole seconds to wait before the budget has room again (at least 1). */
  readonly retryAfterSeconds: number;
}

export interface RateLimits {
  /** Spends `cost` points of the key's budget. */
  spend(key: string, cost: number): Promise<Decision>;
  /** A refusal if the address has failed authentication too often in the current window. */
  authRefusal(address: string): Promise<Decision | undefined>;
  /** Counts one failed authentication from the address. */
  authFailed(address: string): Promise<void>;
  /** Resolves once the shared store is connected (at once without one). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

function decision(res: RateLimiterRes, limit: number, allowed: boolean, now: number): Decision {
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - res.consumedPoints),
    resetAt: new Date(now + res.msBeforeNext),
    retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  };
}

/** The Redis client of REDIS_URL; ioredis is loaded only then. */
async function connectRedis(url: string): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    // Fail fast to the insurance limiter instead of queueing while Redis is away.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
  });
  // Without a listener, a lost connection would be an unhandled 'error' event; ioredis
  // reconnects by itself and the insurance limiter covers the gap.
  redis.on('error', () => undefined);
  return redis;
}

export async function createRateLimits(config: Config): Promise<RateLimits> {
  const redis = config.redisUrl === undefined ? undefined : await connectRedis(config.redisUrl);

  const limiter = (prefix: string, points: number, duration: number): RateLimiterAbstract => {
    const memory = new RateLimiterMemory({ keyPrefix: prefix, points, duration });
    if (redis === undefined) return memory;
    return new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${config.redisKeyPrefix}${prefix}`,
      points,
      duration,
      insuranceLimiter: memory,
    });
  };
  const keys = limiter('rl:key', config.rateLimitPoints, config.rateLimitWindowSeconds);
  const failures = limiter(
    'rl:auth',
    config.rateLimitAuthFailures,
    config.rateLimitAuthWindowSeconds,
  );

  return {
    async spend(key, cost) {
      const now = Date.now();
      const limit = config.rateLimitPoints;
      try {
        return decision(await keys.consume(key, cost), limit, true, now);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return decision(rejection, limit, false, now);
        throw rejection;
      }
    },
    async authRefusal(address) {
      const now = Date.now();
      const limit = config.rateLimitAuthFailures;
      const res = await failures.get(address);
      if (res === null || res.consumedPoints < limit) return undefined;
      return decision(res, limit, false, now);
    },
    async authFailed(address) {
      try {
        await failures.consume(address, 1);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
      }
    },
    async ready() {
      if (redis === undefined || redis.status === 'ready') return;
      await new Promise<void>((resolve, reject) => {
        redis.once('ready', () => resolve());
        redis.once('end', () => reject(new Error('the Redis connection closed')));
      });
    },
    async close() {
      if (redis !== undefined && redis.status !== 'end') {
        await redis.quit().catch(() => redis.disconnect());
      }
    },
  };
}
