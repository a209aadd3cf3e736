import { createHash } from 'node:crypto';
import { addSeconds, iso, sleepOn } from '../../clock.js';
import type { IdempotencyRecord } from '../../store/repositories/idempotency-repository.js';
import {
  completeClaimWithError,
  findIdempotencyRecord,
  insertClaim,
  releaseClaim,
  storedError,
  takeOverClaim,
  transferClaim,
} from '../../store/repositories/idempotency-repository.js';
import type { AuditActor } from '../audit.js';
import { audit } from '../audit.js';
import { DomainError, conflict, isFixedStatusCode } from '../errors.js';
import type { TopUpDeps, TopUpResult } from '../top-up.js';
import { settleOnRetry, topUp } from '../top-up.js';

// A top-up from the portal's form, under the idempotency rules of POST /organisation/balance:
// the form carries a key generated when it was rendered, claimed in the same table as an API
// Idempotency-Key, so a double click (or a resubmitted form) charges once and shows the first
// outcome again. The request fingerprint is the API's for the same amount, so a key is bound to
// one amount wherever it is used.

const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
const WAIT_STEP_MS = 100;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The fingerprint POST /v2.1/organisation/balance?amount=<raw> has in the idempotency table. */
export function topUpRequestHash(rawAmount: string): string {
  return createHash('sha256')
    .update('POST\n/v2.1/organisation/balance\n')
    .update(JSON.stringify({ amount: rawAmount }))
    .update('\nnull')
    .digest('hex');
}

export interface TopUpOnce {
  readonly result: TopUpResult;
  /** True when the key had already been used: nothing new was charged. */
  readonly replayed: boolean;
}

function replayed(status: number, body: string): TopUpOnce {
  if (status >= 400) {
    const error = storedError(body);
    if (error !== undefined && isFixedStatusCode(error.code)) {
      throw new DomainError(error.code, error.message);
    }
  }
  return { result: JSON.parse(body) as TopUpResult, replayed: true };
}

async function recordAudit(
  deps: TopUpDeps,
  who: AuditActor,
  organisationId: string,
  outcome: { ok: true; result: TopUpResult } | { ok: false; amount: string; reason: string },
): Promise<void> {
  await audit(deps.store.db, who, {
    action: outcome.ok ? 'topup.succeeded' : 'topup.failed',
    organisationId,
    at: deps.clock.now(),
    details: outcome.ok
      ? { ...outcome.result }
      : { amount: outcome.amount, reason: outcome.reason },
  });
}

export interface TopUpOnceOptions {
  /** Runs first under the claim: returns the card to charge instead of the saved one. */
  prepare?(): Promise<{ readonly id: string; readonly token: string }>;
  /** Runs after a successful charge, before the outcome is answered. */
  succeeded?(result: TopUpResult): Promise<void>;
}

interface Claimed {
  readonly key: string;
  readonly owner: string;
  readonly who: AuditActor;
}

/** Runs the top-up under a claim on `key`; the claim ends with its outcome. */
async function claimed(
  deps: TopUpDeps,
  org: { id: string; currency: string },
  rawAmount: string,
  { key, owner, who }: Claimed,
  options: TopUpOnceOptions,
): Promise<TopUpOnce> {
  let handedOver = false;
  try {
    const card = await options.prepare?.();
    const result = await topUp(deps, org, rawAmount, {
      idempotencyKey: key,
      handOver: async (newOwner, leaseSeconds) => {
        const until = iso(addSeconds(deps.wallClock.now(), leaseSeconds));
        handedOver = await transferClaim(deps.store.db, org.id, key, owner, newOwner, until);
      },
      ...(card === undefined ? {} : { card }),
    });
    await options.succeeded?.(result);
    await recordAudit(deps, who, org.id, { ok: true, result });
    return { result, replayed: false };
  } catch (error) {
    const reason = error instanceof DomainError ? error.code : 'internal_error';
    // A failed audit write must not hide why the top-up failed.
    await recordAudit(deps, who, org.id, { ok: false, amount: rawAmount, reason }).catch(
      () => undefined,
    );
    if (!handedOver) {
      if (error instanceof DomainError && error.status < 500) {
        await completeClaimWithError(deps.store.db, org.id, key, owner, error);
      } else {
        await releaseClaim(deps.store.db, org.id, key, owner);
      }
    }
    throw error;
  }
}

/**
 * The record of a key already claimed, once the request holding it has finished or the wait
 * (the payment timeout and a little more) is over: a double click answers the first click's
 * outcome instead of "still running".
 */
async function awaitFirst(
  deps: TopUpDeps,
  organisationId: string,
  key: string,
  requestHash: string,
): Promise<IdempotencyRecord | undefined> {
  const db = deps.store.db;
  const deadline = deps.wallClock.now().getTime() + deps.config.paymentTimeoutMs + 2000;
  for (;;) {
    const existing = await findIdempotencyRecord(db, organisationId, key);
    if (existing !== undefined && existing.requestHash !== requestHash) {
      throw conflict(
        'this top-up form was already used for another amount; reload the page',
        'idempotency_key_reused',
      );
    }
    if (existing?.state !== 'running') return existing;
    if (deps.wallClock.now().getTime() >= deadline) {
      // The first request's answer was lost: ask the processor now, as an API retry does.
      if (!(await settleOnRetry(deps, organisationId, key))) return existing;
      return findIdempotencyRecord(db, organisationId, key);
    }
    await sleepOn(deps.wallClock, WAIT_STEP_MS);
  }
}

/**
 * Tops up once per key. A repeat of a finished key answers its first outcome (`replayed`); a
 * repeat while the first is still running is a 409 idempotency_in_progress, unless the charge
 * it waits on has been decided meanwhile, in which case that outcome is answered.
 */
export async function topUpOnce(
  deps: TopUpDeps,
  org: { id: string; currency: string },
  rawAmount: string,
  key: string,
  who: AuditActor,
  options: TopUpOnceOptions = {},
): Promise<TopUpOnce> {
  if (!KEY_PATTERN.test(key)) {
    throw new DomainError('validation_failed', 'the form has no valid idempotency key; reload it');
  }
  const db = deps.store.db;
  const now = deps.clock.now();
  const leaseNow = deps.wallClock.now();
  const leaseSeconds = Math.ceil(deps.config.paymentTimeoutMs / 1000) + 60;
  const claim = {
    organisationId: org.id,
    key,
    requestHash: topUpRequestHash(rawAmount),
    owner: deps.random.uuid(),
    at: iso(now),
    expiresAt: iso(addSeconds(now, IDEMPOTENCY_TTL_SECONDS)),
    leaseNow: iso(leaseNow),
    lockedUntil: iso(addSeconds(leaseNow, leaseSeconds)),
  };
  if ((await insertClaim(db, claim)) || (await takeOverClaim(db, claim))) {
    return claimed(deps, org, rawAmount, { key, owner: claim.owner, who }, options);
  }
  const existing = await awaitFirst(deps, org.id, key, claim.requestHash);
  if (existing === undefined || existing.state === 'running' || existing.responseStatus === null) {
    throw new DomainError(
      'idempotency_in_progress',
      'this top-up is still being processed; reload the page in a few seconds to see its outcome',
      1,
    );
  }
  return replayed(existing.responseStatus, existing.responseBody ?? '{}');
}
