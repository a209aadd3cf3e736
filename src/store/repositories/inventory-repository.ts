import { PostgresAdapter, sql } from 'kysely';
import { compiledOnce } from '../compiled.js';
import type { Executor } from '../database.js';

// Inventory: bundles bought without being applied, one batch per bundle per order. `total` is
// the units bought, `remaining` the units not yet applied; unapplied units lapse at `expiry`.

export interface NewBatch {
  organisationId: string;
  bundleName: string;
  orderReference: string;
  total: number;
  remaining: number;
  expiry: string;
  at: string;
  /** A refunded unit: the batch it was drawn from (its purchase). */
  sourceBatchId?: number | null;
}

type BatchValues = Omit<NewBatch, 'sourceBatchId'> & { sourceBatchId: number | null };

function batchRow(p: BatchValues) {
  return {
    organisation_id: p.organisationId,
    bundle_name: p.bundleName,
    order_reference: p.orderReference,
    total: p.total,
    remaining: p.remaining,
    expiry: p.expiry,
    created_at: p.at,
    source_batch_id: p.sourceBatchId,
  };
}

const insertBatchStatement = compiledOnce((db, p: BatchValues) =>
  db.insertInto('inventory_batches').values(batchRow(p)).returning('id'),
);

// SQLite: the same insert without RETURNING, the id being the driver's last insert rowid (a
// RETURNING clause costs about 2 µs more per row there). PostgreSQL needs the clause.
const insertBatchRowStatement = compiledOnce((db, p: BatchValues) =>
  db.insertInto('inventory_batches').values(batchRow(p)),
);

export async function insertBatch(trx: Executor, b: NewBatch): Promise<number> {
  const values = { ...b, sourceBatchId: b.sourceBatchId ?? null };
  if (!(trx.getExecutor().adapter instanceof PostgresAdapter)) {
    const { insertId } = await insertBatchRowStatement.execute(trx, values);
    if (insertId === undefined) throw new Error('inventory batch insert gave no row id');
    return Number(insertId);
  }
  const { rows } = await insertBatchStatement.execute(trx, values);
  const row = rows[0];
  if (row === undefined) throw new Error('inventory batch insert returned no id');
  return Number(row.id);
}

/** Whether the organisation ever bought units of the bundle into inventory (any batch, any age). */
export async function holdsBundle(
  db: Executor,
  organisationId: string,
  bundleName: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('organisation_bundles')
    .select('bundle_name')
    .where('organisation_id', '=', organisationId)
    .where('bundle_name', '=', bundleName)
    .executeTakeFirst();
  return row !== undefined;
}

// A concurrent draw can empty the chosen batch between the pick and the decrement; then the
// decrement matches nothing and the next batch is tried. Bounded, so a pathological race ends.
const DRAW_ATTEMPTS = 16;

/**
 * Takes one unit of a bundle from the organisation's inventory: the oldest unexpired batch with
 * units left first. The decrement is conditional (remaining > 0), so concurrent draws never take
 * more than a batch holds, on either database. Undefined when nothing is left to draw.
 */
export async function drawFromInventory(
  trx: Executor,
  organisationId: string,
  bundleName: string,
  at: string,
): Promise<{ batchId: number } | undefined> {
  for (let attempt = 0; attempt < DRAW_ATTEMPTS; attempt += 1) {
    const candidate = await trx
      .selectFrom('inventory_batches')
      .select('id')
      .where('organisation_id', '=', organisationId)
      .where('bundle_name', '=', bundleName)
      .where(sql<boolean>`remaining > 0`)
      .where('expiry', '>', at)
      .orderBy('created_at')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    if (candidate === undefined) return undefined;
    const taken = await trx
      .updateTable('inventory_batches')
      .set({ remaining: sql<number>`remaining - 1` })
      .where('id', '=', candidate.id)
      .where('remaining', '>', 0)
      .where('expiry', '>', at)
      .returning('id')
      .executeTakeFirst();
    if (taken !== undefined) return { batchId: Number(taken.id) };
  }
  return undefined;
}

/**
 * A refunded unit (revoke of an unused assignment), as a batch of its own that lapses at
 * `expiry`. A new row rather than an increment of the batch the unit came from: that batch may
 * have lapsed since (the unit would be lost) or lapse sooner than the unit's own validity, and an
 * insert cannot race a concurrent draw from it.
 */
export async function refundToInventory(
  trx: Executor,
  r: {
    organisationId: string;
    bundleName: string;
    reference: string;
    expiry: string;
    at: string;
    /** The batch the unit was drawn from, so an inventory refund finds its purchase. */
    sourceBatchId: number | null;
  },
): Promise<number> {
  return insertBatch(trx, {
    organisationId: r.organisationId,
    bundleName: r.bundleName,
    orderReference: r.reference,
    total: 1,
    remaining: 1,
    expiry: r.expiry,
    at: r.at,
    sourceBatchId: r.sourceBatchId,
  });
}

export interface StoredBatch {
  id: number;
  organisationId: string;
  bundleName: string;
  orderReference: string;
  total: number;
  remaining: number;
  expiry: string;
  createdAt: string;
  sourceBatchId: number | null;
}

async function readBatch(db: Executor, id: number): Promise<StoredBatch | undefined> {
  const r = await db
    .selectFrom('inventory_batches')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  if (r === undefined) return undefined;
  return {
    id: Number(r.id),
    organisationId: r.organisation_id,
    bundleName: r.bundle_name,
    orderReference: r.order_reference,
    total: Number(r.total),
    remaining: Number(r.remaining),
    expiry: r.expiry,
    createdAt: r.created_at,
    sourceBatchId:
      r.source_batch_id === null || r.source_batch_id === undefined
        ? null
        : Number(r.source_batch_id),
  };
}

/** A batch of the organisation; undefined when missing or another organisation's. */
export async function findOwnedBatch(
  db: Executor,
  organisationId: string,
  id: number,
): Promise<StoredBatch | undefined> {
  const batch = await readBatch(db, id);
  return batch?.organisationId === organisationId ? batch : undefined;
}

// A unit revoked and refunded to inventory, applied again and revoked again makes a chain of
// batches; this bounds the walk back to the purchase.
const MAX_CHAIN = 1000;

/** The batch a unit was bought in: follows refunded units back to their purchase. */
export async function purchaseBatchOf(db: Executor, batch: StoredBatch): Promise<StoredBatch> {
  let current = batch;
  for (let step = 0; step < MAX_CHAIN && current.sourceBatchId !== null; step += 1) {
    const source = await readBatch(db, current.sourceBatchId);
    if (source === undefined) break;
    current = source;
  }
  return current;
}

/**
 * Takes `quantity` unapplied units out of a batch (an inventory refund). Conditional, like a
 * draw: false when the batch no longer holds that many unexpired units.
 */
export async function takeFromBatch(
  trx: Executor,
  id: number,
  quantity: number,
  at: string,
): Promise<boolean> {
  const taken = await trx
    .updateTable('inventory_batches')
    .set({ remaining: sql<number>`remaining - ${quantity}` })
    .where('id', '=', id)
    .where('remaining', '>=', quantity)
    .where('expiry', '>', at)
    .returning('id')
    .executeTakeFirst();
  return taken !== undefined;
}

export interface InventoryBatchRow {
  id: number;
  bundleName: string;
  total: number;
  remaining: number;
  expiry: string;
  createdAt: string;
}

/** Where a read of the available batches stopped: the last row's key in the index order. */
export interface BatchKey {
  readonly bundleName: string;
  readonly createdAt: string;
  readonly id: number;
}

/**
 * Up to `limit` of the organisation's unexpired batches with units left, by bundle name then
 * oldest first, after `after` (exclusive). Reads the partial index `inventory_batches_left`
 * (022-growth) in its own order: used-up batches are not in it, and no sort happens.
 */
export async function listAvailableBatchesAfter(
  db: Executor,
  organisationId: string,
  at: string,
  after: BatchKey | undefined,
  limit: number,
): Promise<InventoryBatchRow[]> {
  let query = db
    .selectFrom('inventory_batches')
    .select(['id', 'bundle_name', 'total', 'remaining', 'expiry', 'created_at'])
    .where('organisation_id', '=', organisationId)
    .where(sql<boolean>`remaining > 0`)
    .where('expiry', '>', at);
  if (after !== undefined) {
    query = query.where(
      sql<boolean>`(bundle_name, created_at, id) > (${after.bundleName}, ${after.createdAt}, ${after.id})`,
    );
  }
  const rows = await query
    .orderBy('organisation_id')
    .orderBy('bundle_name')
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    bundleName: r.bundle_name,
    total: Number(r.total),
    remaining: Number(r.remaining),
    expiry: r.expiry,
    createdAt: r.created_at,
  }));
}

/** Rows per statement of `availableBatches`. */
export const AVAILABLE_BATCH_CHUNK = 500;

/**
 * Every unexpired batch with units left, in the order of `listAvailableBatchesAfter`, read a
 * chunk at a time so memory holds one chunk whatever the inventory's size. Each chunk is its
 * own statement: a batch drawn from between two chunks shows the units it had when read.
 */
export async function* availableBatches(
  db: Executor,
  organisationId: string,
  at: string,
  chunk = AVAILABLE_BATCH_CHUNK,
): AsyncGenerator<InventoryBatchRow> {
  let after: BatchKey | undefined;
  for (;;) {
    const rows = await listAvailableBatchesAfter(db, organisationId, at, after, chunk);
    yield* rows;
    const last = rows[rows.length - 1];
    if (last === undefined || rows.length < chunk) return;
    after = { bundleName: last.bundleName, createdAt: last.createdAt, id: last.id };
  }
}
