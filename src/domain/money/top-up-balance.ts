import type { AuditAction, AuditActor } from '../audit/audit-log.js';
import { audit } from '../audit/audit-log.js';
import { DomainError } from '../errors/error-codes.js';
import type { TopUpDeps, TopUpInput, TopUpResult } from './top-up.js';
import { failedTopUpAudit, settleOnRetry, topUp } from './top-up.js';
import type { IdempotencyRequest } from '../runner/idempotency.js';
import type { Outcome, ProcessClaim } from '../runner/use-case-runner.js';
import { runProcess } from '../runner/use-case-runner.js';

// Topping up the balance (POST /organisation/balance): the top-up process of domain/money/top-up.ts
// run under the request's Idempotency-Key claim, which it hands to itself before the charge is
// sent; one audit row once the outcome is known; and a retry that meets the first request still
// in doubt asks the processor at once, settles, and answers with the outcome.

export interface TopUpBalanceInput extends TopUpInput {
  /** Who asks, for the audit log. */
  readonly actor: AuditActor;
  readonly idempotency?: IdempotencyRequest | undefined;
  /** Told when the audit row could not be written (the top-up itself stands). */
  readonly onAuditFailure?: (error: unknown) => void;
}

/**
 * Writes the top-up's audit row once its outcome is known. The top-up has its own transactions
 * (the charge happens between them), so the row follows them; a failure to write it is reported
 * and never turns a completed top-up into an error.
 */
async function audited(
  deps: TopUpDeps,
  input: TopUpBalanceInput,
  claim: ProcessClaim,
): Promise<TopUpResult> {
  const record = async (action: AuditAction, details: object) => {
    try {
      await audit(deps.store.db, input.actor, {
        action,
        organisationId: input.org.id,
        at: deps.clock.now(),
        details: { ...details },
      });
    } catch (error) {
      input.onAuditFailure?.(error);
    }
  };
  try {
    const result = await topUp(deps, input, claim);
    await record('topup.succeeded', result);
    return result;
  } catch (error) {
    const { action, details } = failedTopUpAudit(error, input.rawAmount);
    await record(action, details);
    throw error;
  }
}

const answer = (result: TopUpResult): TopUpResult => result;

/** The claim may run while the charge is awaited, plus a minute. */
const leaseSeconds = (deps: TopUpDeps): number =>
  Math.ceil(deps.config.paymentTimeoutMs / 1000) + 60;

export async function topUpBalance(
  deps: TopUpDeps,
  input: TopUpBalanceInput,
): Promise<Outcome<TopUpResult>> {
  const idempotency =
    input.idempotency === undefined
      ? undefined
      : { ...input.idempotency, leaseSeconds: leaseSeconds(deps) };
  const run = () => runProcess(deps, audited, input, { idempotency, present: answer });
  try {
    return await run();
  } catch (error) {
    // A retry while the first request's charge is in doubt (its answer lost, or its process
    // gone): if the processor has decided meanwhile, settle now and answer with the outcome.
    if (
      error instanceof DomainError &&
      error.code === 'idempotency_in_progress' &&
      idempotency !== undefined &&
      (await settleOnRetry(deps, idempotency.organisationId, idempotency.key))
    ) {
      return run();
    }
    throw error;
  }
}
