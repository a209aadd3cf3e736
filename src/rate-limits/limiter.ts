import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import { createRedisGuard } from './redis-guard.js';
import type { RedisGuard, RedisObserver } from './redis-guard.js';

// Request budgets: fixed windows per API key, and a count of failed authentications per client
// address. With REDIS_URL the counters live in Redis, so every instance spends from one budget;
// without it they live in the process (one instance). Every Redis call has a deadline
// (REDIS_TIMEOUT_MS) and sits behind a circuit breaker (redis-guard.ts): if Redis fails or stops
// answering, each instance answers from its own in-process counters rather than refusing,
// waving every request through or waiting, and goes back to Redis when it answers again.
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

/** What /readyz says of the shared store: none configured, answering, or bypassed. */
export type SharedStoreState = 'none' | 'ok' | 'degraded';

export interface RateLimits {
  /** Spends `cost` points of the key's budget. */
  spend(key: string, cost: number): Promise<Decision>;
  /** A refusal if the address has failed authentication too often in the current window. */
  authRefusal(address: string): Promise<Decision | undefined>;
  /** Counts one failed authentication from the address. */
  authFailed(address: string): Promise<void>;
  /** Resolves once the shared store is connected (at once without one). */
  ready(): Promise<void>;
  /** Pings the shared store within the deadline (no ping while the breaker is open). */
  check(): Promise<SharedStoreState>;
  /** Tells `listener` each time the instance stops (open) or resumes using Redis. */
  onBreaker(listener: (open: boolean, cause: unknown) => void): void;
  close(): Promise<void>;
}

export interface RateLimitOptions {
  readonly observer?: RedisObserver;
  /** The breaker's clock (the service's wall clock; a test's manual one). */
  readonly now?: () => number;
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
async function connectRedis(url: string, timeoutMs: number): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    // Fail fast to the in-process counters instead of queueing while Redis is away.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    // A connected Redis that does not answer: the guard stops waiting at the deadline, and the
    // client drops the command a little later so late commands do not pile up.
    commandTimeout: timeoutMs * 2,
  });
  // Without a listener, a lost connection would be an unhandled 'error' event; ioredis
  // reconnects by itself and the in-process counters cover the gap.
  redis.on('error', () => undefined);
  return redis;
}

const isAnswer = (error: unknown): boolean => error instanceof RateLimiterRes;

/** A limiter in Redis with its in-process stand-in, behind the guard. */
interface Pair {
  readonly shared: RateLimiterAbstract | undefined;
  readonly local: RateLimiterAbstract;
}

export async function createRateLimits(
  config: Config,
  options: RateLimitOptions = {},
): Promise<RateLimits> {
  const redis =
    config.redisUrl === undefined
      ? undefined
      : await connectRedis(config.redisUrl, config.redisTimeoutMs);
  const listeners: ((open: boolean, cause: unknown) => void)[] = [];
  const guard: RedisGuard = createRedisGuard({
    timeoutMs: config.redisTimeoutMs,
    failuresToOpen: config.redisBreakerFailures,
    openMs: config.redisBreakerOpenMs,
    now: options.now ?? Date.now,
    ...(options.observer === undefined ? {} : { observer: options.observer }),
    onChange: (open, cause) => {
      for (const listener of listeners) listener(open, cause);
    },
  });

  const limiter = (prefix: string, points: number, duration: number): Pair => ({
    local: new RateLimiterMemory({ keyPrefix: prefix, points, duration }),
    shared:
      redis === undefined
        ? undefined
        : new RateLimiterRedis({
            storeClient: redis,
            keyPrefix: `${config.redisKeyPrefix}${prefix}`,
            points,
            duration,
          }),
  });
  const consume = (pair: Pair, key: string, cost: number): Promise<RateLimiterRes> => {
    const { shared, local } = pair;
    if (shared === undefined) return local.consume(key, cost);
    return guard.run(
      () => shared.consume(key, cost),
      () => local.consume(key, cost),
      isAnswer,
    );
  };
  const get = (pair: Pair, key: string): Promise<RateLimiterRes | null> => {
    const { shared, local } = pair;
    if (shared === undefined) return local.get(key);
    return guard.run(
      () => shared.get(key),
      () => local.get(key),
      isAnswer,
    );
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
        return decision(await consume(keys, key, cost), limit, true, now);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return decision(rejection, limit, false, now);
        throw rejection;
      }
    },
    async authRefusal(address) {
      const now = Date.now();
      const limit = config.rateLimitAuthFailures;
      const res = await get(failures, address);
      if (res === null || res.consumedPoints < limit) return undefined;
      return decision(res, limit, false, now);
    },
    async authFailed(address) {
      try {
        await consume(failures, address, 1);
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
    async check() {
      if (redis === undefined) return 'none';
      const answered = await guard.run(
        async () => (await redis.ping()) === 'PONG',
        async () => false,
        () => false,
      );
      return answered ? 'ok' : 'degraded';
    },
    onBreaker(listener) {
      listeners.push(listener);
    },
    async close() {
      if (redis !== undefined && redis.status !== 'end') {
        await redis.quit().catch(() => redis.disconnect());
      }
    },
  };
}
