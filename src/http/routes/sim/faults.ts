import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { addFault, removeFaults } from '../../../domain/simulator/simulator-control.js';
import type { SimFault } from '../../../domain/simulator/fault.js';
import { normaliseRoutePattern } from '../../../domain/simulator/fault.js';
import { listFaults } from '../../../domain/simulator/simulator-reads.js';
import type { Api } from '../../api.js';
import { simErrors, simMarks, simulatorOf } from './sim-schema.js';

const Fault = Type.Object({
  id: Type.String(),
  route: Type.String({ description: 'Path pattern it matches.' }),
  method: Type.String({ description: 'HTTP method, or * for any.' }),
  status: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Status answered; null: latency only.',
  }),
  remaining: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Calls it still fires for; null: until removed.',
  }),
  probability: Type.Union([Type.Number(), Type.Null()], {
    description: 'Chance of firing per matching call; null: always.',
  }),
  latencyMs: Type.Integer({ description: 'Delay added before answering, ms.' }),
  createdAt: Type.String(),
});

function faultBody(r: SimFault) {
  return {
    id: r.id,
    route: r.route,
    method: r.method,
    status: r.status,
    remaining: r.remaining,
    probability: r.probability,
    latencyMs: r.latencyMs,
    createdAt: r.createdAt,
  };
}

export function registerSimFaults(app: Api, deps: AppDeps): void {
  app.post(
    '/faults',
    {
      schema: {
        ...simMarks,
        operationId: 'simAddFault',
        summary: 'Add a fault to API routes',
        description:
          'Matching requests answer `status` with {"message","code":"simulated_fault"} (429 and ' +
          '503 with Retry-After: 1) and/or are delayed by latencyMs. `route` is a path of one API ' +
          'version such as /v2.1/orders or /v2.5/orders, or a pattern with * for any run of ' +
          'characters (/v2.1/esims/*); without a version prefix it is /v2.1’s (/orders is ' +
          '/v2.1/orders); a route template such as /v2.1/esims/:iccid matches too. `count` ' +
          'fires it for the next N matching calls, `probability` on each call with that chance ' +
          '(reproducible under SIM_SEED); with neither it fires on every matching call until removed. ' +
          'Faults are checked before authentication, in the order they were added; the first that ' +
          'fires applies.',
        body: Type.Object(
          {
            route: Type.String({ minLength: 1, maxLength: 300 }),
            method: Type.Optional(
              Type.String({
                default: '*',
                pattern: '^(\\*|[A-Za-z]+)$',
                description: 'e.g. POST; * for any.',
              }),
            ),
            status: Type.Optional(Type.Integer({ minimum: 400, maximum: 599 })),
            count: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
            probability: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
            latencyMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000, default: 0 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Fault, ...simErrors },
      },
    },
    async (request) => {
      const body = request.body;
      const row = await addFault(deps, simulatorOf(deps), {
        route: normaliseRoutePattern(body.route),
        method: body.method ?? '*',
        status: body.status ?? null,
        count: body.count ?? null,
        probability: body.probability ?? null,
        latencyMs: body.latencyMs ?? 0,
      });
      return faultBody(row);
    },
  );

  app.get(
    '/faults',
    {
      schema: {
        ...simMarks,
        operationId: 'simListFaults',
        summary: 'List active faults',
        response: { 200: Type.Object({ faults: Type.Array(Fault) }), ...simErrors },
      },
    },
    async () => ({ faults: (await listFaults(deps.store.db)).map(faultBody) }),
  );

  app.delete(
    '/faults',
    {
      schema: {
        ...simMarks,
        operationId: 'simRemoveFaults',
        summary: 'Remove faults',
        description: 'Removes the fault with the given id, or every fault when id is omitted.',
        querystring: Type.Object({ id: Type.Optional(Type.String()) }),
        response: { 200: Type.Object({ removed: Type.Integer() }), ...simErrors },
      },
    },
    async (request) => ({ removed: await removeFaults(deps, request.query.id) }),
  );
}
