import type { Executor, Store } from '../../store/database.js';
import { balanceAfterOrder } from '../../store/repositories/ledger-repository.js';
import type { EsimActivation, StoredOrder } from '../../store/repositories/order-repository.js';
import {
  countOrders,
  findActivations,
  findOrder,
  listOrders,
} from '../../store/repositories/order-repository.js';
import { orderNumbersInTime } from '../../store/repositories/order-time-repository.js';
import type { PlacedOrder } from './placement.js';

// How every surface reads orders: one order, with or without its eSIMs' activation details, and
// a page of the organisation's orders, newest first.

export type { EsimActivation, StoredOrder };

/** An order read back with its eSIMs' activation details. */
export type OrderRead = Pick<PlacedOrder, 'order' | 'activations'>;

/** The organisation's order; undefined when missing or another organisation's. */
export function findOwnOrder(
  db: Executor,
  organisationId: string,
  reference: string,
): Promise<StoredOrder | undefined> {
  return findOrder(db, organisationId, reference);
}

/** Activation details of the eSIMs the orders assigned to, by ICCID; none of a deleted eSIM. */
export function orderActivations(
  db: Executor,
  organisationId: string,
  orders: readonly StoredOrder[],
): Promise<Map<string, EsimActivation>> {
  const iccids = orders.filter((o) => o.assign).flatMap((o) => o.items.flatMap((i) => i.iccids));
  // A deleted eSIM's activation code is not shown again.
  return findActivations(db, organisationId, iccids, true);
}

/** The organisation's order with its eSIMs' activation details, or undefined. */
export async function readOrder(
  deps: { readonly store: Pick<Store, 'db'> },
  organisationId: string,
  orderReference: string,
): Promise<OrderRead | undefined> {
  const db = deps.store.db;
  const order = await findOrder(db, organisationId, orderReference);
  if (order === undefined) return undefined;
  const activations = order.assign
    ? await findActivations(
        db,
        order.organisationId,
        order.items.flatMap((i) => i.iccids),
        true, // a deleted eSIM's activation code is not shown again
      )
    : new Map<string, EsimActivation>();
  return { order, activations };
}

/** An order placed in the background, read back with the balance its payment left. */
export async function readPlacedOrder(
  deps: { readonly store: Pick<Store, 'db'> },
  organisationId: string,
  reference: string,
): Promise<PlacedOrder | undefined> {
  const read = await readOrder(deps, organisationId, reference);
  if (read === undefined) return undefined;
  const after = await balanceAfterOrder(deps.store.db, organisationId, reference);
  return { ...read, balanceAfter: after ?? null };
}

/** Stored bounds of a creation time (ISO strings); `empty` when no order can lie within. */
export interface CreatedWithin {
  readonly from?: string;
  readonly to?: string;
  readonly empty: boolean;
}

export interface OrderPage {
  /** The orders the list holds (created within the bounds, when given). */
  readonly total: number;
  /** The page's orders, newest first. */
  readonly orders: StoredOrder[];
}

const inBounds = (at: string, b: CreatedWithin): boolean =>
  (b.from === undefined || at >= b.from) && (b.to === undefined || at <= b.to);

/**
 * A page of the organisation's orders, newest first, optionally only those created within the
 * bounds: the total first, so the page is the rows numbered below it, however many orders arrive
 * meanwhile.
 */
export async function readOrderPage(
  db: Executor,
  organisationId: string,
  page: { readonly offset: number; readonly limit: number },
  within?: CreatedWithin,
): Promise<OrderPage> {
  let total = await countOrders(db, organisationId);
  let first = 1;
  if (within !== undefined) {
    const numbers = within.empty
      ? { first: 1, last: 0 }
      : await orderNumbersInTime(db, organisationId, within, total);
    first = numbers.first;
    total = Math.max(0, numbers.last - numbers.first + 1);
  }
  let orders = await listOrders(db, organisationId, {
    offset: page.offset,
    limit: page.limit,
    total,
    first,
  });
  if (within !== undefined) orders = orders.filter((o) => inBounds(o.createdAt, within));
  return { total, orders };
}
