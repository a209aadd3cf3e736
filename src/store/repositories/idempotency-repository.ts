import type { ErrorCode } from '../domain-types.js';
import { compiledOnce } from '../compiled.js';
import type { Executor } from '../database.js';

// Idempotency records, keyed by (organisation, key). A record is claimed by one request at a time
// (`owner`), finished with the response it produced, and replayed until `expires_at`.

export interface IdempotencyRecord {
  readonly requestHash: string;
  readonly state: 'running' | 'done';
  readonly responseStatus: number | null;
  readonly responseBody: string | null;
  readonly expiresAt: string;
  readonly lockedUntil: string | null;
  readonly owner: string | null;
}

export interface Claim {
  readonly organisationId: string;
  readonly key: string;
  readonly requestHash: string;
  readonly owner: string;
  readonly at: string;
  readonly expiresAt: string;
  /** Leases run on the system clock, not the simulator's: see src/http/idempotency.ts. */
  readonly leaseNow: string;
  readonly lockedUntil: string;
}

/** The columns of a freshly claimed, running record. */
function claimedColumns(c: Claim) {
  return {
    request_hash: c.requestHash,
    state: 'running',
    response_status: null,
    response_body: null,
    created_at: c.at,
    expires_at: c.expiresAt,
    owner: c.owner,
    locked_until: c.lockedUntil,
  } as const;
}

/** Inserts a running record; false when the key already has one (of any age). */
const insertClaimStatement = compiledOnce((db, p: Claim) =>
  db
    .insertInto('idempotency_keys')
    .values({ organisation_id: p.organisationId, idem_key: p.key, ...claimedColumns(p) })
    .onConflict((oc) => oc.columns(['organisation_id', 'idem_key']).doNothing())
    .returning('idem_key'),
);

export async function insertClaim(db: Executor, c: Claim): Promise<boolean> {
  const { rows } = await insertClaimStatement.execute(db, c);
  return rows.length > 0;
}

/**
 * Takes over a record that has expired, or that is still running past its lease (its holder
 * died). Conditional, so of two requests racing for the same stale record only one wins.
 */
export async function takeOverClaim(db: Executor, c: Claim): Promise<boolean> {
  const result = await takeOverClaimStatement.execute(db, c);
  return Number(result.numAffectedRows ?? 0) === 1;
}

const takeOverClaimStatement = compiledOnce((db, p: Claim) =>
  db
    .updateTable('idempotency_keys')
    .set(claimedColumns(p))
    .where('organisation_id', '=', p.organisationId)
    .where('idem_key', '=', p.key)
    .where((eb) =>
      eb.or([
        eb.and([eb('state', '=', 'done'), eb('expires_at', '<=', p.at)]),
        eb.and([eb('state', '=', 'running'), eb('locked_until', '<=', p.leaseNow)]),
      ]),
    ),
);

export async function findIdempotencyRecord(
  db: Executor,
  organisationId: string,
  key: string,
): Promise<IdempotencyRecord | undefined> {
  const { rows } = await findRecordStatement.execute(db, { organisationId, key });
  const row = rows[0];
  if (row === undefined) return undefined;
  return {
    requestHash: row.request_hash,
    state: row.state === 'done' ? 'done' : 'running',
    responseStatus: row.response_status === null ? null : Number(row.response_status),
    responseBody: row.response_body,
    expiresAt: row.expires_at,
    lockedUntil: row.locked_until,
    owner: row.owner,
  };
}

const findRecordStatement = compiledOnce((db, p: { organisationId: string; key: string }) =>
  db
    .selectFrom('idempotency_keys')
    .select([
      'request_hash',
      'state',
      'response_status',
      'response_body',
      'expires_at',
      'locked_until',
      'owner',
    ])
    .where('organisation_id', '=', p.organisationId)
    .where('idem_key', '=', p.key),
);

/** A finished record written at once, without a running claim before it (insertAnswer). */
export interface Answer {
  readonly organisationId: string;
  readonly key: string;
  readonly requestHash: string;
  readonly at: string;
  readonly expiresAt: string;
  /** Leases run on the system clock: a running claim past this may be written over. */
  readonly leaseNow: string;
  readonly status: number;
  readonly body: string;
}

/**
 * Writes a finished record in one statement, inside the transaction whose effects it answers for:
 * a new record, or one written over a record that has expired or a running claim whose lease has
 * lapsed (the conditions of takeOverClaim). False when the key has a live record: nothing written.
 * On PostgreSQL a record another transaction has just inserted makes this wait for its commit
 * (the unique index), then answer false.
 */
export async function insertAnswer(db: Executor, a: Answer): Promise<boolean> {
  // The rows inserted or written over, on both dialects: one, or none when the key has a live
  // record (a RETURNING clause would tell the same, at about 2 µs more per order on SQLite).
  const { numAffectedRows } = await insertAnswerStatement.execute(db, a);
  return Number(numAffectedRows ?? 0) > 0;
}

const insertAnswerStatement = compiledOnce((db, p: Answer) =>
  db
    .insertInto('idempotency_keys')
    .values({
      organisation_id: p.organisationId,
      idem_key: p.key,
      request_hash: p.requestHash,
      state: 'done',
      response_status: p.status,
      response_body: p.body,
      created_at: p.at,
      expires_at: p.expiresAt,
      owner: null,
      locked_until: null,
    })
    .onConflict((oc) =>
      oc
        .columns(['organisation_id', 'idem_key'])
        .doUpdateSet((eb) => ({
          request_hash: eb.ref('excluded.request_hash'),
          state: eb.ref('excluded.state'),
          response_status: eb.ref('excluded.response_status'),
          response_body: eb.ref('excluded.response_body'),
          created_at: eb.ref('excluded.created_at'),
          expires_at: eb.ref('excluded.expires_at'),
          owner: eb.ref('excluded.owner'),
          locked_until: eb.ref('excluded.locked_until'),
        }))
        // Qualified: the clause sees both the stored row and the proposed one (`excluded`).
        .where((eb) =>
          eb.or([
            eb.and([
              eb('idempotency_keys.state', '=', 'done'),
              eb('idempotency_keys.expires_at', '<=', p.at),
            ]),
            eb.and([
              eb('idempotency_keys.state', '=', 'running'),
              eb('idempotency_keys.locked_until', '<=', p.leaseNow),
            ]),
          ]),
        ),
    ),
);

/** The running record of (organisation, key) while `owner` still holds it. */
function heldBy(organisationId: string, key: string, owner: string) {
  return { organisation_id: organisationId, idem_key: key, owner, state: 'running' } as const;
}

/** Stores the response of a claim; false when the claim is no longer held by `owner`. */
export async function completeClaim(
  db: Executor,
  organisationId: string,
  key: string,
  owner: string,
  status: number,
  body: string,
): Promise<boolean> {
  const result = await completeClaimStatement.execute(db, {
    organisationId,
    key,
    owner,
    status,
    body,
  });
  return Number(result.numAffectedRows ?? 0) === 1;
}

const completeClaimStatement = compiledOnce(
  (db, p: { organisationId: string; key: string; owner: string; status: number; body: string }) =>
    db
      .updateTable('idempotency_keys')
      .set({ state: 'done', response_status: p.status, response_body: p.body, locked_until: null })
      .where((eb) => eb.and(heldBy(p.organisationId, p.key, p.owner))),
);

/** Stores the result a claim ended with, answered 200 with `result` as its JSON body. */
export function completeClaimWithResult(
  db: Executor,
  organisationId: string,
  key: string,
  owner: string,
  result: unknown,
): Promise<boolean> {
  return completeClaim(db, organisationId, key, owner, 200, JSON.stringify(result));
}

/** An error a request ended with, as the catalogue of src/domain/errors/error-codes.ts describes it. */
export interface StoredError {
  readonly code: ErrorCode;
  readonly message: string;
  /** The status of the code, kept in the record for readers that predate stored codes. */
  readonly status: number;
}

/**
 * Stores the error a claim ended with: its code and message, as the body {"message", "code"}.
 * Replays render it again from the code; false when the claim is no longer held by `owner`.
 */
export function completeClaimWithError(
  db: Executor,
  organisationId: string,
  key: string,
  owner: string,
  error: StoredError,
): Promise<boolean> {
  return completeClaim(db, organisationId, key, owner, error.status, storedErrorBody(error));
}

/** The body an error is stored with: its code and message, {"message", "code"}. */
export function storedErrorBody(error: StoredError): string {
  return JSON.stringify({ message: error.message, code: error.code });
}

/** The code and message of a stored error body, or undefined when the body is not one. */
export function storedError(body: string): { code: string; message: string } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const { message, code, ...rest } = parsed as Record<string, unknown>;
  if (typeof message !== 'string' || typeof code !== 'string') return undefined;
  if (Object.keys(rest).length > 0) return undefined;
  return { code, message };
}

/** Hands a running claim to a new owner with a new lease (e.g. to the reconciliation of a charge). */
export async function transferClaim(
  db: Executor,
  organisationId: string,
  key: string,
  owner: string,
  newOwner: string,
  lockedUntil: string,
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ owner: newOwner, locked_until: lockedUntil })
    .where((eb) => eb.and(heldBy(organisationId, key, owner)))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Drops a running claim so the client may retry with the same key. */
export async function releaseClaim(
  db: Executor,
  organisationId: string,
  key: string,
  owner: string,
): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where((eb) => eb.and(heldBy(organisationId, key, owner)))
    .execute();
}

/** Removes records past their replay window (and abandoned claims); returns how many. */
export async function purgeExpiredRecords(
  db: Executor,
  at: string,
  leaseNow: string,
): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('expires_at', '<=', at)
    .where((eb) => eb.or([eb('state', '=', 'done'), eb('locked_until', '<=', leaseNow)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
