import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Decision, RateLimits } from '../rate-limits/limiter.js';
import { addressGroup } from '../domain/access/address-group.js';
import { sendError } from './error-handler.js';
import { can } from './versions/capabilities.js';

// Rate limits of the /v2.1 scope, as the live service does them: every authenticated response
// carries X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset (when the window ends, an
// RFC 3339 time) and X-RateLimit-Cost; over the budget the answer is 429 {"message", "code"} with
// Retry-After. Failed authentications are counted per client address, and an address over its
// count gets 429 before its key is even looked at, so key guessing is throttled while every
// other client carries on.
//
// Whose budget a request spends is the version's choice: the organisation's on v2.1 to v2.3, the
// client address's from v2.4 (the live limit of 10 requests a second per IP; the version switch
// `rateLimitByAddress`), whichever organisation's key the address sends. An address budget is
// spent only by the versions that limit by address, so a v2.1 request never spends it.

/** The live v2.4 answer beyond the limit (a client may compare it). */
const ADDRESS_LIMIT_MESSAGE = 'Rate limit exceeded';

/** The version prefix of a route template (/v2.1 ... /v2.5): costs are set per path below it. */
const VERSION_PREFIX = /^\/v2\.\d+(?=\/)/;

function setHeaders(reply: FastifyReply, d: Decision, cost: number): void {
  reply.header('x-ratelimit-limit', String(d.limit));
  reply.header('x-ratelimit-remaining', String(d.remaining));
  reply.header('x-ratelimit-reset', d.resetAt.toISOString());
  reply.header('x-ratelimit-cost', String(cost));
}

/** The cost of a request: configured per `METHOD /path` (HEAD costs what GET does), else 1. */
export function requestCost(request: FastifyRequest, costs: Config['rateLimitCosts']): number {
  const template = request.routeOptions.url ?? '';
  const path = template.replace(VERSION_PREFIX, '');
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  return costs[`${method} ${path}`] ?? 1;
}

/** Registered before the API-key hook: refuses addresses that failed authentication too often. */
export function limitFailedAuthentication(
  app: FastifyInstance,
  limits: RateLimits,
  config: Pick<Config, 'rateLimitIpv6Prefix'>,
): void {
  // An IPv6 client is counted by its /64 (RATE_LIMIT_IPV6_PREFIX): address-group.ts.
  const group = (address: string) => addressGroup(address, config.rateLimitIpv6Prefix);
  app.addHook('onRequest', async (request, reply) => {
    let refusal: Decision | undefined;
    try {
      refusal = await limits.authRefusal(group(request.ip));
    } catch (error) {
      // A limiter that cannot answer must not take the API down with it: let the request on.
      request.log.warn({ err: error }, 'could not check the failed-authentication count');
      return;
    }
    if (refusal === undefined) return;
    reply.header('x-ratelimit-reset', refusal.resetAt.toISOString());
    return sendError(reply, {
      code: 'rate_limited',
      message: `too many requests with a missing or invalid API key from this address; retry after ${refusal.retryAfterSeconds} s`,
      retryAfterSeconds: refusal.retryAfterSeconds,
    });
  });
  // The API-key hook answers 403 without setting request.organisation: that is a failure.
  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode === 403 && !request.organisation) {
      await limits.authFailed(group(request.ip)).catch((error: unknown) => {
        request.log.warn({ err: error }, 'could not count a failed authentication');
      });
    }
  });
}

/** Registered after the API-key hook: spends the organisation's budget. */
export function limitByApiKey(app: FastifyInstance, limits: RateLimits, config: Config): void {
  limits.onBreaker((open, cause) => {
    if (open) {
      app.log.warn(
        { err: cause },
        `Redis failed or did not answer within ${config.redisTimeoutMs} ms: rate limits use this instance's counters for ${config.redisBreakerOpenMs} ms, then try Redis again`,
      );
    } else {
      app.log.info('Redis answers again: rate limits are shared again');
    }
  });
  app.addHook('onRequest', async (request, reply) => {
    const cost = requestCost(request, config.rateLimitCosts);
    const byAddress = can(request, 'rateLimitByAddress');
    // The organisation's budget is shared by its keys, so a key in its grace period shares it
    // with the new one. Address budgets are named apart from organisation ids.
    const owner = byAddress
      ? `address:${addressGroup(request.ip, config.rateLimitIpv6Prefix)}`
      : request.organisation.id;
    let d: Decision;
    try {
      d = await limits.spend(owner, cost);
    } catch (error) {
      request.log.warn({ err: error }, 'could not spend from the rate-limit budget');
      return;
    }
    setHeaders(reply, d, cost);
    if (d.allowed) return;
    return sendError(reply, {
      code: 'rate_limited',
      message: byAddress
        ? ADDRESS_LIMIT_MESSAGE
        : `rate limit exceeded: ${d.limit} points per ${config.rateLimitWindowSeconds} s, this request costs ${cost}; retry after ${d.retryAfterSeconds} s`,
      retryAfterSeconds: d.retryAfterSeconds,
    });
  });
}
