import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../deps.js';
import { ping } from '../../store/database.js';
import type { Api } from '../api.js';
import { sendError } from '../error-handler.js';
import { ErrorRef } from '../schemas/common.js';

const Status = Type.Object({ status: Type.String() });
const Readiness = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('degraded')], {
    description:
      'ready: every dependency answers; degraded: the database answers but an optional dependency (Redis) does not, and the instance serves without it.',
  }),
  dependencies: Type.Optional(
    Type.Object(
      {
        redis: Type.Union([Type.Literal('ok'), Type.Literal('degraded')], {
          description:
            'degraded: Redis failed or missed its deadline and rate limits use this instance’s own counters.',
        }),
      },
      { description: 'Present when Redis is configured.' },
    ),
  ),
});

// A Redis that does not answer leaves /readyz at 200 with status "degraded", not 503: every
// instance shares the one Redis, so a 503 would take all of them out of rotation at once, while
// each can serve correctly on its own counters (only the rate limits loosen to one budget per
// instance). The body and the esim_redis_breaker_open metric say so for alerting.

export function healthRoutes(app: Api, deps: AppDeps): void {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['Operations'],
        operationId: 'checkLiveness',
        summary: 'Liveness: the process is up',
        response: { 200: Status },
      },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['Operations'],
        operationId: 'checkReadiness',
        summary: 'Readiness: the database is reachable',
        description:
          '200 when the database answers; status "degraded" (still 200) when Redis does not and the instance serves on its own rate-limit counters. 503 when the database does not answer.',
        response: {
          200: Readiness,
          503: {
            ...ErrorRef,
            description:
              'The database does not answer: take the instance out of rotation (Retry-After).',
          },
        },
      },
    },
    async (_request, reply) => {
      try {
        await ping(deps.store);
      } catch {
        return sendError(reply, { code: 'database_unreachable', retryAfterSeconds: 5 });
      }
      const redis = (await deps.rateLimits?.check()) ?? 'none';
      if (redis === 'none') return { status: 'ready' as const };
      return {
        status: redis === 'ok' ? ('ready' as const) : ('degraded' as const),
        dependencies: { redis },
      };
    },
  );
}
