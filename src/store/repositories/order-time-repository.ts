import type { Executor } from '../database.js';

// The orders of a time range as a range of row numbers (022-growth). An instance writes an
// organisation's orders one at a time (group commit queues writes by organisation, and each
// order reads the clock inside its write), so their numbers follow their times: the orders of a
// time range are those numbered from the first order at or after its start to the last one at
// or before its end, each found with one probe of orders_org_source_created (025-order-times).
// Only orders placed by two instances within the same milliseconds can be numbered out of time
// order; the route leaves such an order out of a page it does not belong to (docs/orders.md).

/** Row numbers `first`..`last` (none when last < first) of the orders placed in the range. */
export interface NumberRange {
  readonly first: number;
  readonly last: number;
}

/**
 * The numbers of the organisation's orders placed from `from` to `to` (RFC 3339 UTC, inclusive;
 * either may be open), of the `total` it has (countOrders).
 */
export async function orderNumbersInTime(
  db: Executor,
  organisationId: string,
  range: { readonly from?: string; readonly to?: string },
  total: number,
): Promise<NumberRange> {
  const orders = db
    .selectFrom('orders')
    .select('seq')
    .where('organisation_id', '=', organisationId)
    .where('source', '=', 'order');
  const first =
    range.from === undefined
      ? 1
      : (
          await orders
            .where('created_at', '>=', range.from)
            .orderBy('created_at')
            .orderBy('seq')
            .limit(1)
            .executeTakeFirst()
        )?.seq;
  const last =
    range.to === undefined
      ? total
      : (
          await orders
            .where('created_at', '<=', range.to)
            .orderBy('created_at', 'desc')
            .orderBy('seq', 'desc')
            .limit(1)
            .executeTakeFirst()
        )?.seq;
  if (first === undefined || last === undefined) return { first: 1, last: 0 };
  return { first: Number(first), last: Number(last) };
}
