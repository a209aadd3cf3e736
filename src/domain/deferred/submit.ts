import { addSeconds, iso } from '../../clock.js';
import type { Clock, WallClock } from '../../clock.js';
import type { RandomSource } from '../../random.js';
import type { Db } from '../../store/database.js';
import {
  deleteExpiredDeferred,
  findDeferredByKey,
  findDeferredByReference,
  insertDeferredRequest,
  releaseAnsweredKey,
} from '../../store/repositories/deferred-repository.js';
import type { DeferredRequest } from '../../store/repositories/deferred-repository.js';
import type { DeferredKind } from '../../store/schema.js';
import { DomainError, conflict, isFixedStatusCode } from '../errors/error-codes.js';
import { findAnswer, reserveKey } from '../runner/idempotency.js';
import type { IdempotencyRequest } from '../runner/idempotency.js';
import { runWrite } from '../runner/use-case-runner.js';

// Orders and applies processed in the background: a capability the later versions of the
// interface switch on for requests of more than five bundles (the version layer decides; nothing
// here knows about versions). Accepting one writes a queued row with the order or apply
// reference fixed; the deferred-requests worker (process.ts) does the work and marks the row done
// in one transaction. Asking again with the same request answers from the row:
//   - still queued: 503 `processing` with Retry-After;
//   - done: the reference, which the caller reads back and answers like a synchronous request;
//   - refused while processing (funds spent meanwhile, …): that refusal, a 4xx.
// A request is "the same" by its Idempotency-Key when it has one (the same key with another
// request is a 409, as for every key), else by the hash of the request itself. A keyless request
// is matched only until its outcome has been answered once: then its key is released, and the same
// body sent again is a new order (a client that must never repeat an order sends a key).
// An Idempotency-Key is one key however its request is processed: accepting a keyed request also
// holds the key in idempotency_keys (reserveKey), in the transaction that writes the row, so the
// same key with another request is a 409 whether the other is processed at once or here, and
// whichever of the two came first.

/** Orders and applies of more than this many bundles are the ones the later versions defer. */
export const DEFERRED_ABOVE_UNITS = 5;
/** How long the outcome of a background request is kept for the client to ask again. */
export const DEFERRED_RETENTION_SECONDS = 24 * 3600;
/** Seconds a client is told to wait before asking again (Retry-After). */
export const DEFERRED_RETRY_AFTER_SECONDS = 2;

export interface DeferredDeps {
  readonly store: { readonly db: Db };
  readonly clock: Clock;
  /** Leases of keys held by requests still running (idempotency.ts) run on it. */
  readonly wallClock: WallClock;
  readonly random: RandomSource;
}

export interface DeferredSubmission {
  readonly organisationId: string;
  readonly kind: DeferredKind;
  /** The request's Idempotency-Key, if it carries one. */
  readonly idempotencyKey: string | undefined;
  /** Equal requests hash equally (the surface decides: method, path, query, body). */
  readonly requestHash: string;
  /** The use case's input, without its reference (stored as JSON). */
  readonly input: unknown;
  /** Runs every check of the request before it is accepted (a 4xx refuses it at once). */
  readonly check: () => Promise<void>;
}

/** Where a background request stands: still processing (503), or done with its reference. */
export type DeferredState =
  | { readonly state: 'processing'; readonly reference: string; readonly accepted: boolean }
  | { readonly state: 'done'; readonly reference: string };

/**
 * The 503 a request still being processed is answered with; it names the order (or apply)
 * reference when known, which GET /orders/{orderReference} answers once it is done.
 */
export function stillProcessing(reference?: string): DomainError {
  return new DomainError(
    'processing',
    undefined,
    DEFERRED_RETRY_AFTER_SECONDS,
    reference === undefined ? undefined : { orderReference: reference },
  );
}

/** The request's Idempotency-Key as the runner's records know it, if it carries one. */
function keyOf(submission: DeferredSubmission): IdempotencyRequest | undefined {
  const key = submission.idempotencyKey;
  return key === undefined
    ? undefined
    : { organisationId: submission.organisationId, key, requestHash: submission.requestHash };
}

function requestKeyOf(submission: DeferredSubmission): string {
  return submission.idempotencyKey === undefined
    ? `body:${submission.requestHash}`
    : `key:${submission.idempotencyKey}`;
}

/** The refusal a failed request stored, raised again. */
function storedRefusal(found: DeferredRequest): DomainError {
  const code = found.error?.code;
  return new DomainError(
    isFixedStatusCode(code) ? code : 'bad_request',
    found.error?.message ?? 'the request was refused',
  );
}

/** What an existing row answers the request with (a refusal is thrown). */
async function answerOf(
  db: Db,
  found: DeferredRequest,
  submission: DeferredSubmission,
): Promise<DeferredState> {
  if (found.requestHash !== submission.requestHash) {
    throw conflict(
      `Idempotency-Key "${submission.idempotencyKey ?? ''}" was already used with a different request`,
      'idempotency_key_reused',
    );
  }
  if (found.status === 'queued') {
    return { state: 'processing', reference: found.reference, accepted: false };
  }
  // A keyless request is answered its outcome once; the same body later is a new request.
  if (submission.idempotencyKey === undefined) {
    await releaseAnsweredKey(db, found.id, found.requestKey);
  }
  if (found.status === 'failed') throw storedRefusal(found);
  return { state: 'done', reference: found.reference };
}

/**
 * Accepts an order or apply for the background, or answers a repeat of one from its row. A new
 * request is checked first (`check`), so bad input is refused at once and never queued.
 */
export async function submitDeferred(
  deps: DeferredDeps,
  submission: DeferredSubmission,
): Promise<DeferredState> {
  const db = deps.store.db;
  const requestKey = requestKeyOf(submission);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const now = deps.clock.now();
    const found = await findDeferredByKey(db, submission.organisationId, requestKey);
    if (found !== undefined && found.expiresAt > iso(now)) {
      return answerOf(db, found, submission);
    }
    if (found !== undefined) await deleteExpiredDeferred(db, found.id, iso(now));
    const key = keyOf(submission);
    // The key used by a request processed at once: its record answers (a 409 for this one).
    if (key !== undefined) await findAnswer(db, deps, key);
    await submission.check();
    const reference = deps.random.orderedUuid();
    const expiresAt = addSeconds(now, DEFERRED_RETENTION_SECONDS);
    const inserted = await runWrite(
      deps,
      async (tx) => {
        if (key !== undefined) await reserveKey(tx, deps, key, expiresAt);
        return insertDeferredRequest(tx, {
          id: deps.random.uuid(),
          organisationId: submission.organisationId,
          kind: submission.kind,
          requestKey,
          requestHash: submission.requestHash,
          input: submission.input,
          reference,
          at: iso(now),
          expiresAt: iso(expiresAt),
        });
      },
      undefined,
    );
    if (inserted) return { state: 'processing', reference, accepted: true };
    // The same request arrived at the same time and was accepted first: answer from its row.
  }
  throw stillProcessing();
}

/**
 * Whether an order or apply reference of the organisation is still being processed in the
 * background (so a read of it answers 503 rather than 404).
 */
export async function isStillProcessing(
  deps: Pick<DeferredDeps, 'store'>,
  organisationId: string,
  reference: string,
): Promise<boolean> {
  const found = await findDeferredByReference(deps.store.db, organisationId, reference);
  return found !== undefined && found.status === 'queued';
}
