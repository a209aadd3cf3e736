import { createHash } from 'node:crypto';
import type { AuditActor } from '../audit/audit-log.js';
import { DomainError, conflict } from '../errors/error-codes.js';
import type { TopUpDeps, TopUpResult } from './top-up.js';
import type { ClaimLog, IdempotencyRequest } from '../runner/idempotency.js';
import type { Outcome } from '../runner/use-case-runner.js';
import { answerOf } from '../runner/use-case-runner.js';
import { topUpBalance } from './top-up-balance.js';
import { afterEarlierSubmission } from '../runner/after-earlier.js';

// A top-up from the portal's form: the top-up use case of POST /organisation/balance, under an
// idempotency key generated into the form when it was rendered and claimed in the same table as
// an API Idempotency-Key, so a double click (or a resubmitted form) charges once and shows the
// first outcome again. The request fingerprint is the API's for the same amount, so a key is
// bound to one amount wherever it is used.

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

/** The idempotency request of a form's key for an amount; 400 when the form carries none. */
export function formIdempotency(
  organisationId: string,
  key: string,
  rawAmount: string,
  log?: ClaimLog,
): IdempotencyRequest {
  if (!KEY_PATTERN.test(key)) {
    throw new DomainError('validation_failed', 'the form has no valid idempotency key; reload it');
  }
  return {
    organisationId,
    key,
    requestHash: topUpRequestHash(rawAmount),
    ...(log === undefined ? {} : { log }),
  };
}

function resultOf(outcome: Outcome<TopUpResult>): TopUpOnce {
  return { result: answerOf(outcome), replayed: outcome.kind !== 'done' };
}

/**
 * Runs `attempt` until it has an outcome: a repeat of a form whose first submission is still
 * running waits for it (the payment timeout and a little more) and answers its outcome, so a
 * double click shows what the first click did rather than "still running".
 */
export async function onceForForm(
  deps: Pick<TopUpDeps, 'wallClock' | 'config'>,
  attempt: () => Promise<Outcome<TopUpResult>>,
): Promise<TopUpOnce> {
  const waitMs = deps.config.paymentTimeoutMs + 2000;
  try {
    return resultOf(await afterEarlierSubmission(deps.wallClock, waitMs, attempt));
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    if (error.code === 'idempotency_key_reused') {
      throw conflict(
        'this form was already used for another amount; reload the page',
        'idempotency_key_reused',
      );
    }
    if (error.code !== 'idempotency_in_progress') throw error;
    throw new DomainError(
      'idempotency_in_progress',
      'this payment is still being processed; reload the page in a few seconds to see its outcome',
      1,
    );
  }
}

/** Tops up once per form key (the API's top-up use case and rules). */
export async function topUpOnce(
  deps: TopUpDeps,
  org: { id: string; currency: string },
  rawAmount: string,
  key: string,
  who: AuditActor,
  log?: ClaimLog,
): Promise<TopUpOnce> {
  const idempotency = formIdempotency(org.id, key, rawAmount, log);
  return onceForForm(deps, () => topUpBalance(deps, { org, rawAmount, actor: who, idempotency }));
}
