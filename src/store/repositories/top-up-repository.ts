import type { Executor } from '../database.js';
import type { TopUpStatus } from '../schema.js';

// Top-ups: one row per charge attempt. `status` moves pending -> succeeded | declined | failed,
// or pending -> unknown (sent, no answer) -> succeeded | declined | failed by reconciliation, and
// failed -> succeeded when a charge the processor had no record of arrives after all. Every move
// is conditional on the status it leaves, so two settlers never both credit.

export type { TopUpStatus };

export interface TopUpRow {
  ref: number;
  organisationId: string;
  amount: number;
  status: TopUpStatus;
  cardId: string;
  idempotencyKey: string | null;
  checks: number;
}

export async function insertTopUp(
  db: Executor,
  t: {
    organisationId: string;
    amount: number;
    cardId: string;
    idempotencyKey: string | null;
    at: string;
    nextCheckAt: string;
  },
): Promise<number> {
  const row = await db
    .insertInto('topups')
    .values({
      organisation_id: t.organisationId,
      amount: t.amount,
      status: 'pending',
      card_id: t.cardId,
      processor_ref: null,
      failure_reason: null,
      created_at: t.at,
      updated_at: t.at,
      idempotency_key: t.idempotencyKey,
      next_check_at: t.nextCheckAt,
    })
    .returning('ref')
    .executeTakeFirstOrThrow();
  return Number(row.ref);
}

/**
 * Moves a top-up out of pending/unknown; false when another settler got there first. The
 * processor's answer that a charge succeeded also moves a `failed` one: reconciliation fails a
 * top-up whose charge the processor had no record of yet, and a charge that arrives after that
 * lookup has still taken the money, so it is credited (once: the move leaves `failed` only once).
 */
export async function settleTopUp(
  db: Executor,
  ref: number,
  to: 'succeeded' | 'declined' | 'failed' | 'unknown',
  details: { processorRef?: string; reason?: string; nextCheckAt?: string | null; at: string },
): Promise<boolean> {
  const from: TopUpStatus[] =
    to === 'unknown'
      ? ['pending']
      : to === 'succeeded'
        ? ['pending', 'unknown', 'failed']
        : ['pending', 'unknown'];
  const result = await db
    .updateTable('topups')
    .set({
      status: to,
      processor_ref: details.processorRef ?? null,
      failure_reason: details.reason ?? null,
      next_check_at: details.nextCheckAt ?? null,
      updated_at: details.at,
    })
    .where('ref', '=', ref)
    .where('status', 'in', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Schedules the next lookup of a top-up still in doubt. */
export async function postponeCheck(db: Executor, ref: number, nextCheckAt: string): Promise<void> {
  await db
    .updateTable('topups')
    .set((eb) => ({ next_check_at: nextCheckAt, checks: eb('checks', '+', 1) }))
    .where('ref', '=', ref)
    .where('status', 'in', ['pending', 'unknown'])
    .execute();
}

const TOP_UP_COLUMNS = [
  'ref',
  'organisation_id',
  'amount',
  'status',
  'card_id',
  'idempotency_key',
  'checks',
] as const;

/** A top-up's status, read on its own; undefined when there is no such top-up. */
export async function topUpStatus(db: Executor, ref: number): Promise<TopUpStatus | undefined> {
  const row = await db
    .selectFrom('topups')
    .select('status')
    .where('ref', '=', ref)
    .executeTakeFirst();
  return row?.status;
}

/** The top-up in doubt (pending or unknown) that a request with this Idempotency-Key started. */
export async function findInDoubtByKey(
  db: Executor,
  organisationId: string,
  key: string,
): Promise<TopUpRow | undefined> {
  const row = await db
    .selectFrom('topups')
    .select(TOP_UP_COLUMNS)
    .where('status', 'in', ['pending', 'unknown'])
    .where('organisation_id', '=', organisationId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
  return row === undefined ? undefined : toTopUp(row);
}

/** Top-ups in doubt whose next check is due: sent without an answer, or left pending by a crash. */
export async function dueForCheck(db: Executor, at: string, limit: number): Promise<TopUpRow[]> {
  const rows = await db
    .selectFrom('topups')
    .select(TOP_UP_COLUMNS)
    .where('status', 'in', ['pending', 'unknown'])
    .where('next_check_at', '<=', at)
    .orderBy('next_check_at')
    .limit(limit)
    .execute();
  return rows.map(toTopUp);
}

function toTopUp(r: {
  ref: number;
  organisation_id: string;
  amount: number;
  status: TopUpStatus;
  card_id: string;
  idempotency_key: string | null;
  checks: number;
}): TopUpRow {
  return {
    ref: Number(r.ref),
    organisationId: r.organisation_id,
    amount: Number(r.amount),
    status: r.status,
    cardId: r.card_id,
    idempotencyKey: r.idempotency_key,
    checks: Number(r.checks),
  };
}
