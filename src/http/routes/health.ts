import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../deps.js';
import { ping } from '../../store/database.js';
import type { Api } from '../api.js';
import { sendError } from '../error-handler.js';
import { ErrorRef } from '../schemas/common.js';

const Status = Type.Object({ status: Type.String() });

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
        response: {
          200: Status,
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
        return { status: 'ready' };
      } catch {
        return sendError(reply, { code: 'database_unreachable', retryAfterSeconds: 5 });
      }
    },
  );
}
