import type { Selectable } from 'kysely';
import { PostgresAdapter, sql } from 'kysely';
import { CompiledQuery } from 'kysely';
import { batchOf } from '../batch.js';
import { compiledOnce } from '../compiled.js';
import { countOf, nextNumber, pageBounds } from './count-repository.js';
import type { Executor } from '../database.js';
import { insertBatch } from './inventory-repository.js';
import type { NewBatch } from './inventory-repository.js';
import type { OrderStatus, OrdersTable } from '../schema.js';

export interface StoredOrderItem {
  lineNo: number;
  type: string;
  item: string;
  quantity: number;
  pricePerUnit: number;
  subTotal: number;
  /** The eSIMs an assigned line went onto, in unit order; empty for inventory lines. */
  iccids: string[];
}

export interface StoredOrder {
  reference: string;
  organisationId: string;
  status: OrderStatus;
  statusMessage: string;
  total: number;
  currency: string;
  assign: boolean;
  createdAt: string;
  items: StoredOrderItem[];
}

const insertOrderStatement = compiledOnce(
  (db, p: Omit<StoredOrder, 'items' | 'assign'> & { assign: number }) => {
    // SQLite: numbered by the insert (036-numbered-inserts).
    const seq = nextNumber(db, p.organisationId, 'orders:order');
    return db.insertInto('orders').values({
      reference: p.reference,
      organisation_id: p.organisationId,
      status: p.status,
      status_message: p.statusMessage,
      total: p.total,
      currency: p.currency,
      assign: p.assign,
      source: 'order',
      created_at: p.createdAt,
      ...(seq === undefined ? {} : { seq }),
    });
  },
);

interface ItemRow {
  order_reference: string;
  line_no: number;
  type: string;
  item: string;
  quantity: number;
  price_per_unit: number;
  sub_total: number;
  iccids: string;
}

/** The one-line order, by far the most common, compiled once. */
const insertOneItem = compiledOnce((db, p: ItemRow) =>
  db.insertInto('order_items').values({
    order_reference: p.order_reference,
    line_no: p.line_no,
    type: p.type,
    item: p.item,
    quantity: p.quantity,
    price_per_unit: p.price_per_unit,
    sub_total: p.sub_total,
    iccids: p.iccids,
  }),
);

/**
 * PostgreSQL: an order of one line into inventory (the common order) in one statement: the order,
 * its line and its batch, as data-modifying CTEs (their foreign keys are checked at its end).
 */
const insertOneLineOrderWithBatch = compiledOnce(
  (
    db,
    p: ItemRow &
      Omit<StoredOrder, 'items' | 'assign'> & {
        assign: number;
        batch_organisation_id: string;
        batch_bundle_name: string;
        batch_order_reference: string;
        batch_total: number;
        batch_remaining: number;
        batch_expiry: string;
        batch_at: string;
      },
  ) => {
    const statement = sql`
      with placed as (
        insert into orders (reference, organisation_id, status, status_message, total, currency,
          assign, source, created_at)
        values (${p.reference}, ${p.organisationId}, ${p.status}, ${p.statusMessage}, ${p.total},
          ${p.currency}, ${p.assign}, 'order', ${p.createdAt})
      ), line as (
        insert into order_items (order_reference, line_no, type, item, quantity, price_per_unit,
          sub_total, iccids)
        values (${p.order_reference}, ${p.line_no}, ${p.type}, ${p.item}, ${p.quantity},
          ${p.price_per_unit}, ${p.sub_total}, ${p.iccids})
      )
      insert into inventory_batches (organisation_id, bundle_name, order_reference, total,
        remaining, expiry, created_at, source_batch_id)
      values (${p.batch_organisation_id}, ${p.batch_bundle_name}, ${p.batch_order_reference},
        ${p.batch_total}, ${p.batch_remaining}, ${p.batch_expiry}, ${p.batch_at}, null)
    `;
    return { compile: () => statement.compile(db) };
  },
);

interface OneLineOrder {
  readonly order: StoredOrder;
  readonly line: ItemRow;
  readonly batch: NewBatch;
}

/**
 * PostgreSQL: one-line orders into inventory, as many as a group-commit batch queued, in one
 * statement (the same rows as insertOneLineOrderWithBatch, from arrays).
 */
const INSERT_ONE_LINE_ORDERS = `
  with placed as (
    insert into orders (reference, organisation_id, status, status_message, total, currency,
      assign, source, created_at)
    select reference, organisation_id, status, status_message, total, currency, assign, 'order',
      created_at
    from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[],
      $7::integer[], $8::text[])
      as t(reference, organisation_id, status, status_message, total, currency, assign, created_at)
  ), line as (
    insert into order_items (order_reference, line_no, type, item, quantity, price_per_unit,
      sub_total, iccids)
    select * from unnest($9::text[], $10::integer[], $11::text[], $12::text[], $13::integer[],
      $14::bigint[], $15::bigint[], $16::text[])
  )
  insert into inventory_batches (organisation_id, bundle_name, order_reference, total, remaining,
    expiry, created_at, source_batch_id)
  select organisation_id, bundle_name, order_reference, total, remaining, expiry, created_at, null
  from unnest($17::text[], $18::text[], $19::text[], $20::integer[], $21::integer[], $22::text[],
    $23::text[])
    as t(organisation_id, bundle_name, order_reference, total, remaining, expiry, created_at)
`;

async function insertOneLineOrders(trx: Executor, placed: readonly OneLineOrder[]): Promise<void> {
  const column = <T>(of: (p: OneLineOrder) => T): T[] => placed.map(of);
  await trx.executeQuery(
    CompiledQuery.raw(INSERT_ONE_LINE_ORDERS, [
      column((p) => p.order.reference),
      column((p) => p.order.organisationId),
      column((p) => p.order.status),
      column((p) => p.order.statusMessage),
      column((p) => p.order.total),
      column((p) => p.order.currency),
      column((p) => (p.order.assign ? 1 : 0)),
      column((p) => p.order.createdAt),
      column((p) => p.line.order_reference),
      column((p) => p.line.line_no),
      column((p) => p.line.type),
      column((p) => p.line.item),
      column((p) => p.line.quantity),
      column((p) => p.line.price_per_unit),
      column((p) => p.line.sub_total),
      column((p) => p.line.iccids),
      column((p) => p.batch.organisationId),
      column((p) => p.batch.bundleName),
      column((p) => p.batch.orderReference),
      column((p) => p.batch.total),
      column((p) => p.batch.remaining),
      column((p) => p.batch.expiry),
      column((p) => p.batch.at),
    ]),
  );
}

/**
 * Writes an order, its lines and the inventory batches it bought (when it assigns nothing) in
 * the caller's transaction: one statement on PostgreSQL for a one-line order (queued in a
 * group-commit batch, which inserts all of its one-line orders in one statement), else one per
 * table.
 */
export async function insertOrder(
  trx: Executor,
  order: StoredOrder,
  inventory: readonly NewBatch[] = [],
): Promise<void> {
  const rows: ItemRow[] = order.items.map((i) => ({
    order_reference: order.reference,
    line_no: i.lineNo,
    type: i.type,
    item: i.item,
    quantity: i.quantity,
    price_per_unit: i.pricePerUnit,
    sub_total: i.subTotal,
    iccids: JSON.stringify(i.iccids),
  }));
  const [only] = rows;
  const [batch] = inventory;
  const assign = order.assign ? 1 : 0;
  if (
    trx.getExecutor().adapter instanceof PostgresAdapter &&
    only !== undefined &&
    rows.length === 1 &&
    batch !== undefined &&
    inventory.length === 1 &&
    (batch.sourceBatchId ?? null) === null
  ) {
    const group = batchOf(trx);
    if (group !== undefined) {
      group.queue('one-line orders', { order, line: only, batch }, insertOneLineOrders);
      return;
    }
    await insertOneLineOrderWithBatch.execute(trx, {
      ...order,
      ...only,
      assign,
      batch_organisation_id: batch.organisationId,
      batch_bundle_name: batch.bundleName,
      batch_order_reference: batch.orderReference,
      batch_total: batch.total,
      batch_remaining: batch.remaining,
      batch_expiry: batch.expiry,
      batch_at: batch.at,
    });
    return;
  }
  await insertOrderStatement.execute(trx, { ...order, assign });
  if (rows.length === 1 && only !== undefined) await insertOneItem.execute(trx, only);
  else await trx.insertInto('order_items').values(rows).execute();
  for (const b of inventory) await insertBatch(trx, b);
}

type OrderRow = Omit<Selectable<OrdersTable>, 'source' | 'seq'>;

async function withItems(db: Executor, orders: OrderRow[]): Promise<StoredOrder[]> {
  if (orders.length === 0) return [];
  const items = await db
    .selectFrom('order_items')
    .select([
      'order_reference',
      'line_no',
      'type',
      'item',
      'quantity',
      'price_per_unit',
      'sub_total',
      'iccids',
    ])
    .where(
      'order_reference',
      'in',
      orders.map((o) => o.reference),
    )
    .orderBy('order_reference')
    .orderBy('line_no')
    .execute();
  const byOrder = new Map<string, StoredOrderItem[]>();
  for (const i of items) {
    const list = byOrder.get(i.order_reference) ?? [];
    list.push({
      lineNo: Number(i.line_no),
      type: i.type,
      item: i.item,
      quantity: Number(i.quantity),
      pricePerUnit: Number(i.price_per_unit),
      subTotal: Number(i.sub_total),
      iccids: JSON.parse(i.iccids) as string[],
    });
    byOrder.set(i.order_reference, list);
  }
  return orders.map((o) => ({
    reference: o.reference,
    organisationId: o.organisation_id,
    status: o.status,
    statusMessage: o.status_message,
    total: Number(o.total),
    currency: o.currency,
    assign: Number(o.assign) === 1,
    createdAt: o.created_at,
    items: byOrder.get(o.reference) ?? [],
  }));
}

const ORDER_COLUMNS = [
  'reference',
  'organisation_id',
  'status',
  'status_message',
  'total',
  'currency',
  'assign',
  'created_at',
] as const;

/** An order of the organisation; undefined when missing or another organisation's. */
export async function findOrder(
  db: Executor,
  organisationId: string,
  reference: string,
): Promise<StoredOrder | undefined> {
  const row = await db
    .selectFrom('orders')
    .select(ORDER_COLUMNS)
    .where('reference', '=', reference)
    .where('organisation_id', '=', organisationId)
    .where('source', '=', 'order')
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const [order] = await withItems(db, [row]);
  return order;
}

/**
 * A page of the organisation's orders, newest first (the last written first), of the `total`
 * read before (countOrders): a range of row numbers read through `orders_org_seq`, so the last
 * page costs what the first does.
 */
export async function listOrders(
  db: Executor,
  organisationId: string,
  page: { offset: number; limit: number; total: number; first?: number },
): Promise<StoredOrder[]> {
  const { from, to } = pageBounds(page.total, page, 'desc');
  if (to < from) return [];
  // A list of the orders numbered from `first` (a time range's, order-time-repository.ts).
  const shift = (page.first ?? 1) - 1;
  const rows = await db
    .selectFrom('orders')
    .select(ORDER_COLUMNS)
    .where('organisation_id', '=', organisationId)
    .where('source', '=', 'order')
    .where('seq', '>=', from + shift)
    .where('seq', '<=', to + shift)
    .orderBy('organisation_id', 'desc')
    .orderBy('source', 'desc')
    .orderBy('seq', 'desc')
    .execute();
  return withItems(db, rows);
}

/** How many orders the organisation placed (a counter, not a count of the rows). */
export async function countOrders(db: Executor, organisationId: string): Promise<number> {
  return countOf(db, organisationId, 'orders:order');
}

export interface EsimActivation {
  iccid: string;
  matchingId: string;
  smdpAddress: string;
}

/**
 * Activation details of the given eSIMs of the organisation, keyed by ICCID; with `liveOnly`,
 * only those still on the account (not deleted): an order taking bundles, and an order read back,
 * which shows no activation code of a deleted eSIM.
 */
export async function findActivations(
  db: Executor,
  organisationId: string,
  iccids: readonly string[],
  liveOnly = false,
): Promise<Map<string, EsimActivation>> {
  const out = new Map<string, EsimActivation>();
  const unique = [...new Set(iccids)];
  // Chunked: SQLite limits the number of bound parameters per statement. Found by ICCID (the
  // primary key) and the organisation checked on the rows found: with the organisation in the
  // WHERE clause, SQLite's planner would walk the organisation's index over all its eSIMs.
  for (let i = 0; i < unique.length; i += 500) {
    let query = db
      .selectFrom('esims')
      .select(['iccid', 'organisation_id', 'matching_id', 'smdp_address'])
      .where('iccid', 'in', unique.slice(i, i + 500));
    // A deleted (deactivated) eSIM has left the account: it takes no bundles, and its
    // activation code is not shown again.
    if (liveOnly) query = query.where('state', '!=', 'deactivated');
    const rows = await query.execute();
    for (const r of rows) {
      if (r.organisation_id !== organisationId) continue;
      out.set(r.iccid, { iccid: r.iccid, matchingId: r.matching_id, smdpAddress: r.smdp_address });
    }
  }
  return out;
}

/** What one unit of a bundle cost in an order (minor units); undefined when not in that order. */
export async function unitPriceOf(
  db: Executor,
  orderReference: string,
  item: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('order_items')
    .select('price_per_unit')
    .where('order_reference', '=', orderReference)
    .where('item', '=', item)
    .orderBy('line_no')
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.price_per_unit);
}
