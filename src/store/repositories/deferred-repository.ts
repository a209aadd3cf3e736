import type { Executor } from '../database.js';
import type { DeferredKind, DeferredRequestsTable, DeferredStatus } from '../schema.js';

// Orders and applies processed in the background (migration 019). A row is written queued when
// the request is accepted, claimed with a lease by a worker, and finished (done, or failed with
// the refusal's code and message) in the transaction of the work it answers for.

export interface DeferredRequest {
  readonly id: string;
  readonly organisationId: string;
  readonly kind: DeferredKind;
  readonly requestKey: string;
  readonly requestHash: string;
  readonly input: unknown;
  readonly reference: string;
  readonly status: DeferredStatus;
  readonly error: { readonly code: string; readonly message: string } | undefined;
  readonly attempts: number;
  readonly leaseOwner: string | null;
  readonly lockedUntil: string | null;
  readonly createdAt: string;
  readonly expiresAt: string;
}

type Row = Omit<DeferredRequestsTable, 'attempts'> & { attempts: number };

function fromRow(row: Row): DeferredRequest {
  return {
    id: row.id,
    organisationId: row.organisation_id,
    kind: row.kind,
    requestKey: row.request_key,
    requestHash: row.request_hash,
    input: JSON.parse(row.input) as unknown,
    reference: row.reference,
    status: row.status,
    error:
      row.error_code === null
        ? undefined
        : { code: row.error_code, message: row.error_message ?? '' },
    attempts: Number(row.attempts),
    leaseOwner: row.lease_owner,
    lockedUntil: row.locked_until,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

export interface NewDeferredRequest {
  readonly id: string;
  readonly organisationId: string;
  readonly kind: DeferredKind;
  readonly requestKey: string;
  readonly requestHash: string;
  readonly input: unknown;
  readonly reference: string;
  readonly at: string;
  readonly expiresAt: string;
}

/** Inserts a queued request; false when the organisation already has one with that key. */
export async function insertDeferredRequest(
  db: Executor,
  request: NewDeferredRequest,
): Promise<boolean> {
  const result = await db
    .insertInto('deferred_requests')
    .values({
      id: request.id,
      organisation_id: request.organisationId,
      kind: request.kind,
      request_key: request.requestKey,
      request_hash: request.requestHash,
      input: JSON.stringify(request.input),
      reference: request.reference,
      status: 'queued',
      error_code: null,
      error_message: null,
      lease_owner: null,
      locked_until: null,
      created_at: request.at,
      updated_at: request.at,
      expires_at: request.expiresAt,
    })
    .onConflict((oc) => oc.columns(['organisation_id', 'request_key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** The organisation's request with that key, if any. */
export async function findDeferredByKey(
  db: Executor,
  organisationId: string,
  requestKey: string,
): Promise<DeferredRequest | undefined> {
  const row = await db
    .selectFrom('deferred_requests')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .where('request_key', '=', requestKey)
    .executeTakeFirst();
  return row === undefined ? undefined : fromRow(row);
}

/** The organisation's request that owns an order or apply reference, if any. */
export async function findDeferredByReference(
  db: Executor,
  organisationId: string,
  reference: string,
): Promise<DeferredRequest | undefined> {
  const row = await db
    .selectFrom('deferred_requests')
    .selectAll()
    .where('reference', '=', reference)
    .where('organisation_id', '=', organisationId)
    .executeTakeFirst();
  return row === undefined ? undefined : fromRow(row);
}

/** Deletes a request whose record has expired, so its key may be used again. */
export async function deleteExpiredDeferred(db: Executor, id: string, at: string): Promise<void> {
  await db
    .deleteFrom('deferred_requests')
    .where('id', '=', id)
    .where('expires_at', '<=', at)
    .execute();
}

/**
 * Frees the key of a request that was asked for without an Idempotency-Key once its outcome has
 * been answered: the same body sent again is a new request.
 */
export async function releaseAnsweredKey(
  db: Executor,
  id: string,
  requestKey: string,
): Promise<void> {
  await db
    .updateTable('deferred_requests')
    .set({ request_key: `answered:${id}` })
    .where('id', '=', id)
    .where('request_key', '=', requestKey)
    .execute();
}

/** Queued requests whose lease is free or has lapsed (`leaseNow`, wall clock), oldest first. */
export async function listDueDeferred(
  db: Executor,
  leaseNow: string,
  limit: number,
): Promise<DeferredRequest[]> {
  const rows = await db
    .selectFrom('deferred_requests')
    .selectAll()
    .where('status', '=', 'queued')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', leaseNow)]))
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(fromRow);
}

/** Takes the lease of a queued request whose lease is free or lapsed; false when another holds it. */
export async function claimDeferred(
  db: Executor,
  claim: { id: string; owner: string; leaseNow: string; lockedUntil: string; at: string },
): Promise<boolean> {
  const result = await db
    .updateTable('deferred_requests')
    .set((eb) => ({
      lease_owner: claim.owner,
      locked_until: claim.lockedUntil,
      attempts: eb('attempts', '+', 1),
      updated_at: claim.at,
    }))
    .where('id', '=', claim.id)
    .where('status', '=', 'queued')
    .where((eb) =>
      eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', claim.leaseNow)]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Finishes a request its holder still holds: done, or failed with a refusal's code and message.
 * False when the lease was lost (another worker took it over), so the caller rolls back.
 */
export async function finishDeferred(
  db: Executor,
  finish: {
    id: string;
    owner: string;
    at: string;
    error?: { readonly code: string; readonly message: string };
  },
): Promise<boolean> {
  const result = await db
    .updateTable('deferred_requests')
    .set({
      status: finish.error === undefined ? 'done' : 'failed',
      error_code: finish.error?.code ?? null,
      error_message: finish.error?.message ?? null,
      lease_owner: null,
      locked_until: null,
      updated_at: finish.at,
    })
    .where('id', '=', finish.id)
    .where('status', '=', 'queued')
    .where('lease_owner', '=', finish.owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Hands a claimed request back to be tried again after `lockedUntil` (wall clock). */
export async function postponeDeferred(
  db: Executor,
  postpone: { id: string; owner: string; lockedUntil: string; at: string },
): Promise<void> {
  await db
    .updateTable('deferred_requests')
    .set({ lease_owner: null, locked_until: postpone.lockedUntil, updated_at: postpone.at })
    .where('id', '=', postpone.id)
    .where('lease_owner', '=', postpone.owner)
    .execute();
}

/** Deletes finished requests past their expiry, at most `limit`; returns how many. */
export async function purgeDeferred(db: Executor, at: string, limit: number): Promise<number> {
  const ids = await db
    .selectFrom('deferred_requests')
    .select('id')
    .where('expires_at', '<=', at)
    .where('status', '!=', 'queued')
    .limit(limit)
    .execute();
  if (ids.length === 0) return 0;
  await db
    .deleteFrom('deferred_requests')
    .where(
      'id',
      'in',
      ids.map((r) => r.id),
    )
    .execute();
  return ids.length;
}
