import { Type } from '@sinclair/typebox';
import type { TObject } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';

// The list parameters of the later versions: `createdAt` with filter operators on GET /orders
// (spec24; operators from v2.2), and `limit` and `includeIccids` beside the paging of v2.1.

const CONDITIONS = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  maxItems: 10,
  description:
    'When the order was placed, as conditions that must all hold: `<operator>:<time>` or a bare time (eq). Operators eq, lt, lte, gt, gte; a time is RFC 3339 (2024-01-31T23:59:59Z) or a date (2024-01-31, the whole UTC day). Repeat the parameter for a range: createdAt=gte:2024-01-01&createdAt=lt:2024-02-01.',
  examples: [['gte:2024-01-01T00:00:00Z', 'lte:2024-01-31T23:59:59Z']],
});

/** GET /orders on v2.2 and later: v2.1's paging, `limit`, `includeIccids` and `createdAt`. */
export function listOrdersQuery(shared: TObject): TObject {
  return Type.Object({
    ...shared.properties,
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 500,
        description: 'Orders per page (the live name of perPage; it wins when both are sent).',
      }),
    ),
    includeIccids: Type.Optional(
      Type.Boolean({
        description: 'Accepted for compatibility: assigned lines always carry their eSIMs.',
      }),
    ),
    createdAt: Type.Optional(CONDITIONS),
  });
}

/** `limit` as the shared route's perPage. */
export function limitAsPerPage(request: FastifyRequest): void {
  const query = request.query as { limit?: number; perPage?: number };
  if (query.limit !== undefined) query.perPage = query.limit;
}

/** GET /esims on v2.2 and later: v2.1's parameters, and the live filterBy and filter. */
export function listEsimsQuery(shared: TObject): TObject {
  return Type.Object({
    ...shared.properties,
    filterBy: Type.Optional(
      Type.String({
        maxLength: 40,
        description:
          'The field filter applies to: iccid. The live service also names customerRef, lastAction, actionDate and assignedDate; this service answers them with a 400 rather than an unfiltered list.',
        examples: ['iccid'],
      }),
    ),
    filter: Type.Optional(
      Type.String({
        maxLength: 100,
        description:
          'With filterBy=iccid: the ICCID, whole (eq:<iccid> or the ICCID alone). The list then holds that eSIM, or nothing when the organisation has no such eSIM.',
        examples: ['8944500102198304826'],
      }),
    ),
  });
}
