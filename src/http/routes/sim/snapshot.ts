import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import {
  SNAPSHOT_FORMAT,
  exportSnapshot,
  importSnapshot,
} from '../../../domain/simulator/snapshot.js';
import type { Api } from '../../api.js';
import { ErrorRef } from '../../schemas/common.js';
import { simErrors, simMarks } from './sim-schema.js';

// GET /_sim/snapshot saves the whole simulator state, PUT /_sim/snapshot restores it. A snapshot
// is a file with a media type of its own, so that a JSON body sent by mistake is not taken for
// one (and a snapshot is never an example to try from the documentation page).

export const SNAPSHOT_MEDIA_TYPE = 'application/vnd.esim.snapshot+json';

const Clock = Type.Object({
  now: Type.String({ description: 'Simulated time, RFC 3339.' }),
  offsetSeconds: Type.Integer({
    description: 'How far the simulated clock is ahead of real time.',
  }),
});

const SnapshotBody = Type.Object(
  {
    format: Type.Literal(SNAPSHOT_FORMAT),
    version: Type.Integer(),
    exportedAt: Type.String(),
    clock: Clock,
    migrations: Type.Array(Type.String()),
    apiKeys: Type.Record(Type.String(), Type.String(), {
      description: 'Each organisation API key in clear, by organisation id.',
    }),
    tables: Type.Record(Type.String(), Type.Array(Type.Record(Type.String(), Type.Unknown())), {
      description: 'Every row of every table, by table name.',
    }),
  },
  { additionalProperties: false },
);

// The shape of a snapshot, cut to one row of two tables (a real one holds every table).
const EXAMPLE_SNAPSHOT = {
  format: SNAPSHOT_FORMAT,
  version: 1,
  exportedAt: '2026-12-03T10:00:00.000Z',
  clock: { now: '2026-12-03T10:00:00.000Z', offsetSeconds: 691_200 },
  migrations: ['001-foundation', '002-catalogue'],
  apiKeys: { '0b0c6f0e-5f3c-4d51-9d7e-1f7b2a6c9e01': 'esim_EXAMPLE-KEY-NOT-A-REAL-ONE' },
  tables: {
    sim_state: [{ key: 'clock_offset_ms', value: '691200000' }],
    esims: [{ iccid: '8944000000000000019', customer_ref: 'fleet-7', profile_status: 'Installed' }],
  },
};

export function registerSimSnapshot(app: Api, deps: AppDeps): void {
  app.addContentTypeParser(
    SNAPSHOT_MEDIA_TYPE,
    { parseAs: 'string', bodyLimit: 1024 * 1024 * 1024 },
    (_request, body, done) => {
      try {
        done(null, JSON.parse(String(body)));
      } catch {
        done(Object.assign(new Error('the snapshot is not valid JSON'), { statusCode: 400 }));
      }
    },
  );
  app.get(
    '/snapshot',
    {
      schema: {
        ...simMarks,
        operationId: 'simExportSnapshot',
        summary: 'Save the whole simulator state',
        description:
          'Every organisation (with its API key in clear), user, balance and journal entry, order, eSIM, bundle, callback, mail, SMS, fault and setting, and the clock, as one JSON document. `esim sim export <file>` writes it to a file; PUT it back to restore that state.',
        produces: [SNAPSHOT_MEDIA_TYPE],
        response: {
          200: { ...SnapshotBody, description: 'The snapshot.', examples: [EXAMPLE_SNAPSHOT] },
          ...simErrors,
          409: {
            ...ErrorRef,
            description:
              "An organisation's API key cannot be read with this simulator's MASTER_KEY: rotate it.",
          },
        },
      },
    },
    async (_request, reply) => {
      const snapshot = await exportSnapshot(deps);
      return reply.type(SNAPSHOT_MEDIA_TYPE).send(JSON.stringify(snapshot));
    },
  );
  app.put(
    '/snapshot',
    {
      bodyLimit: 1024 * 1024 * 1024,
      schema: {
        ...simMarks,
        operationId: 'simImportSnapshot',
        summary: 'Restore the simulator state from a snapshot',
        description: `Replaces everything with the snapshot's state, clock included, in one transaction (a refused snapshot changes nothing). The body is what GET /_sim/snapshot answered, sent as \`${SNAPSHOT_MEDIA_TYPE}\`; a snapshot of another schema version is refused with 400. \`esim sim import <file>\` sends a file.`,
        consumes: [SNAPSHOT_MEDIA_TYPE],
        body: SnapshotBody,
        response: {
          200: Type.Object(
            {
              organisations: Type.Integer(),
              esims: Type.Integer(),
              clock: Clock,
            },
            { description: 'The state was restored.' },
          ),
          ...simErrors,
        },
      },
    },
    async (request) => importSnapshot(deps, request.body),
  );
}
