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

/** The keys a filtered eSIM list's Link header carries. */
const LIST_KEY = (side: 'next' | 'prev') =>
  Type.String({
    maxLength: 400,
    description: `Set by the ${side} link of a list filtered by customerRef, lastAction, actionDate or assignedDate: the place of the row ${side === 'next' ? 'before' : 'after'} the page (<iccid>,<issue time>,<value>), or ${side === 'next' ? 'start (the page from its first row), which an empty page past the start of the list links on with' : 'end (the page up to its last row), which the last link carries and an empty page past the end of the list links back with'}. Not with ${side === 'next' ? 'before' : 'after'}, nor with a page other than 1 (a 400: links by key carry no page). Follow the links rather than building it.`,
  });

/** GET /esims on v2.2 and later: v2.1's parameters, and the live filterBy and filter. */
export function listEsimsQuery(shared: TObject): TObject {
  return Type.Object({
    ...shared.properties,
    filterBy: Type.Optional(
      Type.String({
        maxLength: 40,
        description:
          'The field filter applies to: iccid, customerRef, lastAction, actionDate or assignedDate (anything else is a 400). With iccid the list holds that eSIM or nothing. With the others it holds the eSIMs whose value matches, ordered by that value, then in the order they were issued (direction=desc reverses both), each read through an index.',
        examples: ['customerRef'],
      }),
    ),
    filter: Type.Optional(
      Type.String({
        maxLength: 100,
        description:
          'One condition on the filterBy field. iccid: the ICCID, whole (eq:<iccid> or the ICCID alone). customerRef and lastAction (text, case-sensitive): eq:<text> is the whole value; a bare text is a prefix (the value starts with it); * matches any run of characters and, anywhere but at the end, makes the pattern match the whole value (*-42, ACME*-42); lt, lte, gt, gte are a 400. actionDate and assignedDate (times): <operator>:<time> or a bare time (eq), operators eq, lt, lte, gt, gte, a time RFC 3339 (2024-01-31T23:59:59Z) or a date (2024-01-31, the whole UTC day); one condition (the parameter is not repeated). An eSIM without the value (no reference, never assigned) never matches. A filtered list other than iccid counts its matches up to 10,000 (rows, pageCount, X-Total-Count) and its pages by number reach that far; its Link header pages by key past them. A pattern with * before its end reads up to 10,000 values per page, so a rare match may leave a page short, with a next link carrying on.',
        examples: ['eq:fleet-7'],
      }),
    ),
    after: Type.Optional(LIST_KEY('next')),
    before: Type.Optional(LIST_KEY('prev')),
  });
}
