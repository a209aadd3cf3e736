import type { Clock, WallClock } from '../../clock.js';
import { addSeconds, iso } from '../../clock.js';
import type { RandomSource } from '../../random.js';
import type { Db, Executor } from '../../store/database.js';
import {
  completeClaim,
  completeClaimWithError,
  findIdempotencyRecord,
  insertAnswer,
  insertClaim,
  releaseClaim,
  storedError,
  storedErrorBody,
  takeOverClaim,
  transferClaim,
} from '../../store/repositories/idempotency-repository.js';
import { DomainError, conflict, isFixedStatusCode } from '../errors/error-codes.js';
import type { IdempotencyRecord } from '../../store/repositories/idempotency-repository.js';

// `Idempotency-Key`: a request that presents a key claims it (a `running` record keyed by
// organisation and key, holding a hash of the request), runs, and stores its outcome; a repeat
// with the same key and request gets the stored outcome back instead of running again.
// - Same key, different request: 409 `idempotency_key_reused`.
// - Same key while the first request still runs: 409 `idempotency_in_progress`.
// - Records are kept IDEMPOTENCY_TTL_SECONDS on the service clock; an expired one may be reused.
//   A claim's lease runs on the wall clock, so moving the simulator's clock never lets a second
//   request take over one that is still running; a lapsed lease (its holder died) may be taken.
// The runner (use-case-runner.ts) is the only caller: it claims, writes the outcome in the use case's own
// transaction, stores a 4xx error, and releases the claim on anything unexpected. A write the
// group writer commits takes no claim: findAnswer and recordAnswer read and write its record in
// the write's own transaction, finished at once.

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** How long a claim may run before another request may take it over (its holder died). */
export const DEFAULT_LEASE_SECONDS = 120;
/** The status a record keeps with an answer (an error keeps its code's; earlier releases kept the route's 2xx). */
const ANSWERED = 200;

/** What a request presents: its organisation, its key and a hash of the request itself. */
export interface IdempotencyRequest {
  readonly organisationId: string;
  readonly key: string;
  /** Equal requests hash equally (the surface decides what the request is: method, path, body). */
  readonly requestHash: string;
  /** Seconds the claim may run before another request may take it over. */
  readonly leaseSeconds?: number;
  /** Where a claim that could not be released is told of (the request's log). */
  readonly log?: ClaimLog;
}

/** What the runner logs through about a request's claim. */
export interface ClaimLog {
  warn(details: object, message: string): void;
}

export interface IdempotencyDeps {
  readonly store: { readonly db: Db };
  readonly clock: Clock;
  readonly wallClock: WallClock;
  readonly random: RandomSource;
}

/**
 * A stored outcome, answered again, for each surface to show as it shows a first answer: the
 * answer the first request was given (`replayed`), or the catalogue error it was refused with
 * (`refused`). A record in a form no release of this code writes (an earlier release's answer
 * with another status) is kept as it was stored (`stored`), to be answered exactly so.
 */
export type Replay<B> =
  | { readonly kind: 'replayed'; readonly body: B }
  | { readonly kind: 'refused'; readonly error: DomainError }
  | { readonly kind: 'stored'; readonly status: number; readonly text: string };

/** A claim this request holds. `owner` changes when the claim is handed over. */
export interface HeldClaim {
  readonly kind: 'held';
  readonly organisationId: string;
  readonly key: string;
  owner: string;
  handedOver: boolean;
}

function inProgress(key: string, what: string): DomainError {
  return new DomainError(
    'idempotency_in_progress',
    `a request with Idempotency-Key "${key}" ${what}`,
    1,
  );
}

/** What a finished record answers: the body its request was answered with, or its refusal. */
function replayOf<B>(status: number, text: string): Replay<B> {
  const error = status >= 400 ? storedError(text) : undefined;
  if (error !== undefined && isFixedStatusCode(error.code)) {
    return { kind: 'refused', error: new DomainError(error.code, error.message) };
  }
  if (status >= 200 && status < 300) {
    try {
      // The body this code stored for the request (JSON.stringify of what the runner presented).
      return { kind: 'replayed', body: JSON.parse(text) as B };
    } catch {
      // Not JSON: answered as stored, below.
    }
  }
  return { kind: 'stored', status, text };
}

/** Claims the key, or answers why not: a replay of the stored outcome, or a 409. */
export async function claimKey<B>(
  deps: IdempotencyDeps,
  request: IdempotencyRequest,
): Promise<HeldClaim | Replay<B>> {
  const db = deps.store.db;
  const { organisationId, key } = request;
  const now = deps.clock.now();
  const leaseNow = deps.wallClock.now();
  const claim = {
    organisationId,
    key,
    requestHash: request.requestHash,
    owner: deps.random.uuid(),
    at: iso(now),
    expiresAt: iso(addSeconds(now, IDEMPOTENCY_TTL_SECONDS)),
    leaseNow: iso(leaseNow),
    lockedUntil: iso(addSeconds(leaseNow, request.leaseSeconds ?? DEFAULT_LEASE_SECONDS)),
  };
  if ((await insertClaim(db, claim)) || (await takeOverClaim(db, claim))) {
    return { kind: 'held', organisationId, key, owner: claim.owner, handedOver: false };
  }
  const existing = await findIdempotencyRecord(db, organisationId, key);
  // Released or purged between our two statements: the client may simply retry.
  if (existing === undefined) throw inProgress(key, 'just finished; retry');
  return answerOf(existing, request);
}

/** What a live record answers a request with: its stored outcome, or a 409. */
function answerOf<B>(existing: IdempotencyRecord, request: IdempotencyRequest): Replay<B> {
  const { key } = request;
  if (existing.requestHash !== request.requestHash) {
    throw conflict(
      `Idempotency-Key "${key}" was already used with a different request`,
      'idempotency_key_reused',
    );
  }
  if (existing.state === 'running' || existing.responseStatus === null) {
    throw inProgress(key, 'is still being processed; retry later');
  }
  return replayOf(existing.responseStatus, existing.responseBody ?? '{}');
}

// Inside the transaction of the write (a use case run by the group writer): no claim of its own.
// A request that finds a live record (findAnswer) is answered from it; otherwise the record is
// written once, finished, by the transaction whose effects it answers for (recordAnswer).

/** A record that no longer holds its key: expired, or a claim whose holder's lease has lapsed. */
function lapsed(record: IdempotencyRecord, at: string, leaseNow: string): boolean {
  if (record.state === 'done') return record.expiresAt <= at;
  return record.lockedUntil !== null && record.lockedUntil <= leaseNow;
}

/**
 * The answer the key's record gives this request, read in `tx`: a replay, or a 409
 * (`idempotency_key_reused`, `idempotency_in_progress`); undefined when the key is free to use.
 */
export async function findAnswer<B>(
  tx: Executor,
  deps: IdempotencyDeps,
  request: IdempotencyRequest,
): Promise<Replay<B> | undefined> {
  const existing = await findIdempotencyRecord(tx, request.organisationId, request.key);
  if (existing === undefined) return undefined;
  if (lapsed(existing, iso(deps.clock.now()), iso(deps.wallClock.now()))) return undefined;
  return answerOf(existing, request);
}

/**
 * Writes the finished record of this request in `tx` (a new one, or over a lapsed one): its
 * answer, or a 4xx DomainError's code and message. False when the key has a live record.
 */
export function recordAnswer(
  tx: Executor,
  deps: IdempotencyDeps,
  request: IdempotencyRequest,
  outcome: { readonly body: unknown } | DomainError,
): Promise<boolean> {
  const now = deps.clock.now();
  const stored =
    outcome instanceof DomainError
      ? { status: outcome.status, body: storedErrorBody(outcome) }
      : { status: ANSWERED, body: JSON.stringify(outcome.body) };
  return insertAnswer(tx, {
    organisationId: request.organisationId,
    key: request.key,
    requestHash: request.requestHash,
    at: iso(now),
    expiresAt: iso(addSeconds(now, IDEMPOTENCY_TTL_SECONDS)),
    leaseNow: iso(deps.wallClock.now()),
    ...stored,
  });
}

/** The 409 of a key whose record appeared while this request ran (another transaction's). */
export function takenMeanwhile(key: string): DomainError {
  return inProgress(key, 'is still being processed; retry later');
}

/**
 * Holds the key, in `tx`, for a request whose outcome is kept elsewhere (an order processed in
 * the background keeps it with its row) until `expiresAt`: a request with the same key and
 * another body is then refused with 409 `idempotency_key_reused` on every route, whichever of the
 * two came first. False when the key already holds this same request (a twin got there first).
 */
export async function reserveKey(
  tx: Executor,
  deps: IdempotencyDeps,
  request: IdempotencyRequest,
  expiresAt: Date,
): Promise<boolean> {
  const error = new DomainError(
    'processing',
    `the request with Idempotency-Key "${request.key}" is processed in the background; send it again for its outcome`,
  );
  const reserved = await insertAnswer(tx, {
    organisationId: request.organisationId,
    key: request.key,
    requestHash: request.requestHash,
    at: iso(deps.clock.now()),
    expiresAt: iso(expiresAt),
    leaseNow: iso(deps.wallClock.now()),
    status: error.status,
    body: storedErrorBody({ code: error.code, message: error.message, status: error.status }),
  });
  if (reserved) return true;
  const existing = await findIdempotencyRecord(tx, request.organisationId, request.key);
  if (existing !== undefined && existing.requestHash !== request.requestHash) {
    throw conflict(
      `Idempotency-Key "${request.key}" was already used with a different request`,
      'idempotency_key_reused',
    );
  }
  return false;
}

/** Whether an error is an outcome the key keeps (and replays): a 4xx DomainError. */
export function isStoredOutcome(error: unknown): error is DomainError {
  return error instanceof DomainError && error.status < 500;
}

/** Stores the answer; false when the claim is no longer held. */
export function storeAnswer(db: Executor, held: HeldClaim, body: unknown): Promise<boolean> {
  const { organisationId, key, owner } = held;
  return completeClaim(db, organisationId, key, owner, ANSWERED, JSON.stringify(body));
}

/** Stores the answer in `tx` (the use case's transaction); 409 if the claim was lost meanwhile. */
export async function completeKey(tx: Executor, held: HeldClaim, body: unknown): Promise<void> {
  const { key } = held;
  if (!(await storeAnswer(tx, held, body))) {
    throw conflict(
      `Idempotency-Key "${key}" was taken over by another request`,
      'idempotency_in_progress',
    );
  }
}

/**
 * After a failure: a 4xx DomainError is stored (its code and message, replayed from the code);
 * anything else releases the claim so the client can retry. A claim handed over is left alone.
 */
export async function failKey(db: Db, held: HeldClaim, error: unknown): Promise<void> {
  if (held.handedOver) return;
  const { organisationId, key, owner } = held;
  if (isStoredOutcome(error)) {
    await completeClaimWithError(db, organisationId, key, owner, error);
  } else {
    await releaseClaim(db, organisationId, key, owner);
  }
}

/** Passes the claim to `owner`, who must complete or release it within leaseSeconds. */
export async function handOverKey(
  deps: IdempotencyDeps,
  held: HeldClaim,
  owner: string,
  leaseSeconds: number,
): Promise<void> {
  const until = iso(addSeconds(deps.wallClock.now(), leaseSeconds));
  const { organisationId, key } = held;
  if (await transferClaim(deps.store.db, organisationId, key, held.owner, owner, until)) {
    held.owner = owner;
    held.handedOver = true;
  }
}
