import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import type { Api } from '../../api.js';
import { simErrors, simMarks } from './sim-schema.js';

/** The answer of GET /_sim/requests; `esim sim requests` reads it too. */
export const JournalAnswer = Type.Object({
  requests: Type.Array(
    Type.Object({
      organisationId: Type.String(),
      at: Type.String({ description: 'RFC 3339 UTC, simulated time.' }),
      method: Type.String(),
      path: Type.String(),
      status: Type.Integer(),
      durationMs: Type.Integer(),
    }),
  ),
});
export type JournalAnswer = Static<typeof JournalAnswer>;

export function registerSimRequests(app: Api, deps: AppDeps): void {
  app.get(
    '/requests',
    {
      schema: {
        ...simMarks,
        operationId: 'simListRequests',
        summary: 'Read the request journal',
        description:
          'Recent API calls made with an organisation key, newest first: method, path (without ' +
          'its query), status, time by the simulated clock and duration. The journal keeps about ' +
          'the newest 5,000 calls of the simulator.',
        querystring: Type.Object({
          organisation: Type.Optional(
            Type.String({ description: 'Only this organisation’s calls.' }),
          ),
          limit: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 1000,
              default: 100,
              description: 'At most this many.',
            }),
          ),
        }),
        response: {
          200: JournalAnswer,
          ...simErrors,
        },
      },
    },
    async (request) => {
      const { organisation, limit = 100 } = request.query;
      const rows = (await deps.journal?.recent(organisation, limit)) ?? [];
      return {
        requests: rows.map((r) => ({
          organisationId: r.organisation_id,
          at: r.at,
          method: r.method,
          path: r.path,
          status: r.status,
          durationMs: r.duration_ms,
        })),
      };
    },
  );
}
