import type { Clock, WallClock } from '../../clock.js';
import { addSeconds, iso } from '../../clock.js';
import type { Config } from '../../config.js';
import type {
  ChargeLookup,
  ChargeOutcome,
  DeclineCode,
  PaymentGateway,
} from './payment-gateway.js';
import { GatewayUnavailableError } from './payment-gateway.js';
import type { RandomSource } from '../../random.js';
import { commitUnknown, databaseBusy } from '../../store/conflicts.js';
import type { Db, Executor } from '../../store/database.js';
import {
  completeClaimWithError,
  completeClaimWithResult,
  releaseClaim,
} from '../../store/repositories/idempotency-repository.js';
import { applyMovement, readFunds } from '../../store/repositories/ledger-repository.js';
import {
  findCard,
  findDefaultCard,
  setDefaultCard,
} from '../../store/repositories/payment-repository.js';
import type { TopUpRow } from '../../store/repositories/top-up-repository.js';
import {
  dueForCheck,
  findInDoubtByKey,
  insertTopUp,
  postponeCheck,
  settleTopUp,
  topUpStatus,
} from '../../store/repositories/top-up-repository.js';
import type { AuditAction } from '../audit/audit-log.js';
import { audit, systemActor } from '../audit/audit-log.js';
import type { ProcessClaim } from '../runner/use-case-runner.js';
import { runWrite } from '../runner/use-case-runner.js';
import { DomainError, badRequest, notFound, unavailable } from '../errors/error-codes.js';

// Balance top-up: charge the organisation's saved card through the payment gateway and credit
// the balance. A top-up row is written before the charge is sent, so a charge is never lost:
// - answered "succeeded": the row is settled and the balance credited in one transaction;
// - answered "declined": 400 with the reason, nothing credited;
// - not delivered (processor down): 503 with Retry-After, nothing charged, nothing credited;
// - sent but not answered in PAYMENT_TIMEOUT_MS: 503 with Retry-After; the row is marked unknown
//   and settled later, by the late answer or by reconciliation asking the processor. Settling is
//   conditional on the row still being in doubt, so a top-up is credited at most once.
// A top-up settled later has no request left to write its audit row, so the settlement writes
// it, as the system, in its own transaction; and a portal first payment settled that way makes
// its card the default there too, as the portal would have had the answer come in time.

export interface TopUpDeps {
  readonly store: { readonly db: Db };
  readonly clock: Clock;
  /** Real time: the payment timeout is a wait on another system, never moved by the simulator. */
  readonly wallClock: WallClock;
  readonly random: RandomSource;
  readonly config: Config;
  readonly payments: PaymentGateway;
}

export interface TopUpResult {
  amount: number;
  balance: number;
  ref: number;
}

export interface TopUpInput {
  readonly org: { readonly id: string; readonly currency: string };
  /** The `amount` as given: checked here (parseAmount). */
  readonly rawAmount: string | undefined;
  /** The card to charge instead of the saved default (a first payment with a new card). */
  readonly card?: { readonly id: string; readonly token: string };
}

/**
 * The audit row of a top-up request that ended in `error`, for the request to write. A top-up
 * whose connection to the database went while it was being saved (store/lost-transactions.ts:
 * 503 commit_unknown) may have been credited or not: `topup.unknown`, not `topup.failed`. If the
 * credit did not commit, the top-up stays in doubt, and whoever settles it later (a retry with
 * the same Idempotency-Key, reconciliation) writes the system's `topup.succeeded` (auditLate);
 * if it did, the top-up's ledger movement is there.
 */
export function failedTopUpAudit(
  error: unknown,
  rawAmount: string | undefined,
): { action: 'topup.failed' | 'topup.unknown'; details: Readonly<Record<string, unknown>> } {
  if (commitUnknown(error)) {
    return { action: 'topup.unknown', details: { amount: rawAmount, reason: 'commit_unknown' } };
  }
  const reason =
    error instanceof DomainError
      ? error.code
      : databaseBusy(error)
        ? 'database_busy'
        : 'internal_error';
  return { action: 'topup.failed', details: { amount: rawAmount, reason } };
}

/** Seconds a client is asked to wait after a 503 from the processor. */
export const PROCESSOR_RETRY_AFTER_SECONDS = 30;
/** Seconds a client is asked to wait while an unanswered charge is being confirmed. */
export const UNKNOWN_RETRY_AFTER_SECONDS = 10;
// A pending row outlives its request only if the process died: the request itself marks it
// unknown when PAYMENT_TIMEOUT_MS passes without an answer. Reconciliation treats it as in doubt
// this long after that, as it does an unknown one.
const CRASH_GRACE_SECONDS = UNKNOWN_RETRY_AFTER_SECONDS;
/** The longest wait between two lookups of a charge the processor still reports as processing. */
const MAX_CHECK_INTERVAL_SECONDS = 300;

/** Who finishes the idempotency record of a top-up whose outcome was unknown. */
export const topUpOwner = (ref: number): string => `topup:${ref}`;
const chargeReference = (ref: number): string => `topup-${ref}`;

/** The `amount` query parameter: a string of digits carrying a whole number of minor units within limits. */
export function parseAmount(
  raw: string | undefined,
  limits: Pick<Config, 'topUpMin' | 'topUpMax'>,
): number {
  if (raw === undefined || raw.trim() === '') {
    throw badRequest('query parameter amount is required (whole minor units)', 'invalid_amount');
  }
  // Digits only: no sign, no spaces, no leading zero (the spec's "string carrying an integer").
  if (!/^(0|[1-9][0-9]*)$/.test(raw)) {
    throw badRequest(
      `query parameter amount must be a whole number of minor units written in digits only (no sign, spaces or leading zeros), got "${raw.slice(0, 40)}"`,
      'invalid_amount',
    );
  }
  const amount = Number(raw);
  if (amount <= 0) throw badRequest(`amount must be positive, got ${raw}`, 'invalid_amount');
  if (amount < limits.topUpMin) throw new TopUpOutOfRange('least', limits.topUpMin, raw);
  if (!Number.isSafeInteger(amount) || amount > limits.topUpMax) {
    throw new TopUpOutOfRange('most', limits.topUpMax, raw);
  }
  return amount;
}

/**
 * A top-up amount outside TOPUP_MIN..TOPUP_MAX. The message is in minor units, as the amount was
 * given; the figures are kept so that a version whose money is in major units says them in its
 * own terms (http/versions/presenters/errors.ts) without parsing the message.
 */
export class TopUpOutOfRange extends DomainError {
  constructor(
    readonly bound: 'least' | 'most',
    /** TOPUP_MIN or TOPUP_MAX, minor units. */
    readonly limit: number,
    /** The amount asked for: digits of minor units (possibly past the safe integers). */
    readonly amount: string,
  ) {
    super('invalid_amount', `amount must be at ${bound} ${limit}, got ${amount}`);
  }

  /** The figures of a refusal of this kind, also of one an Idempotency-Key record kept. */
  static of(error: DomainError): TopUpOutOfRange | undefined {
    if (error instanceof TopUpOutOfRange) return error;
    if (error.code !== 'invalid_amount') return undefined;
    const figures = OUT_OF_RANGE.exec(error.message);
    if (figures === null) return undefined;
    const [, bound, limit, amount = ''] = figures;
    return new TopUpOutOfRange(bound === 'least' ? 'least' : 'most', Number(limit), amount);
  }
}

const OUT_OF_RANGE = /^amount must be at (least|most) (\d+), got (\d+)$/;

type Timed = { kind: 'answered'; outcome: ChargeOutcome } | { kind: 'timeout' };

function withTimeout(charge: Promise<ChargeOutcome>, ms: number, clock: WallClock): Promise<Timed> {
  let cancel: () => void = () => undefined;
  const timeout = new Promise<Timed>((resolve) => {
    cancel = clock.setTimer(ms, () => resolve({ kind: 'timeout' }));
  });
  return Promise.race([
    charge.then((outcome): Timed => ({ kind: 'answered', outcome })),
    timeout,
  ]).finally(() => cancel());
}

/**
 * The audit row of a top-up settled after its request gave up on it (the request writes its own
 * when it has the answer, src/domain/money/top-up-balance.ts), in the settling transaction.
 */
function auditLate(
  tx: Executor,
  deps: TopUpDeps,
  t: TopUpRow,
  action: AuditAction,
  details: Readonly<Record<string, unknown>>,
): Promise<void> {
  return audit(tx, systemActor, {
    action,
    organisationId: t.organisationId,
    at: deps.clock.now(),
    details,
  });
}

/**
 * A portal first payment (src/domain/money/card-payment.ts) adopts its card once the charge
 * succeeds; when that answer came too late for the request, the settlement adopts it instead.
 * A card already the default is left as it is, and so is a newer default saved meanwhile (the
 * newest saved card is the one top-up charges), so a late answer never brings back an old card.
 */
async function adoptLateCard(tx: Executor, deps: TopUpDeps, t: TopUpRow): Promise<void> {
  const card = await findCard(tx, t.organisationId, t.cardId);
  if (card === undefined || card.isDefault) return;
  const current = await findDefaultCard(tx, t.organisationId);
  if (current !== undefined && current.createdAt > card.createdAt) return;
  await setDefaultCard(tx, t.organisationId, card.id);
  await auditLate(tx, deps, t, 'card.saved', {
    cardId: card.id,
    brand: card.brand,
    last4: card.last4,
  });
}

async function credit(
  deps: TopUpDeps,
  t: TopUpRow,
  processorRef: string,
  late: boolean,
): Promise<TopUpResult | undefined> {
  const at = iso(deps.clock.now());
  return runWrite(
    deps,
    async (trx) => {
      if (!(await settleTopUp(trx, t.ref, 'succeeded', { processorRef, at }))) return undefined;
      const balances = await applyMovement(trx, {
        organisationId: t.organisationId,
        kind: 'topup',
        balanceDelta: t.amount,
        testCreditDelta: 0,
        reference: String(t.ref),
        description: `top-up ${t.ref} (${processorRef})`,
        at,
      });
      if (balances === undefined) throw notFound(`organisation ${t.organisationId} not found`);
      const result = { amount: t.amount, balance: balances.balance, ref: t.ref };
      if (t.idempotencyKey !== null) {
        await completeClaimWithResult(
          trx,
          t.organisationId,
          t.idempotencyKey,
          topUpOwner(t.ref),
          result,
        );
      }
      if (late) {
        await adoptLateCard(trx, deps, t);
        await auditLate(trx, deps, t, 'topup.succeeded', { ...result });
      }
      return result;
    },
    undefined,
  );
}

function declinedError(outcome: { code: DeclineCode; reason: string }): DomainError {
  return badRequest(`card declined: ${outcome.reason}`, outcome.code);
}

/** A declined charge: the top-up settled declined, its idempotency record given the 400. */
async function decline(
  deps: TopUpDeps,
  t: TopUpRow,
  outcome: { code: DeclineCode; reason: string },
  late: boolean,
): Promise<void> {
  const at = iso(deps.clock.now());
  const key = t.idempotencyKey;
  await runWrite(
    deps,
    async (trx) => {
      if (!(await settleTopUp(trx, t.ref, 'declined', { reason: outcome.reason, at }))) return;
      if (key !== null) {
        const error = declinedError(outcome);
        await completeClaimWithError(trx, t.organisationId, key, topUpOwner(t.ref), error);
      }
      if (late) {
        const details = { amount: String(t.amount), reason: outcome.code, ref: t.ref };
        await auditLate(trx, deps, t, 'topup.failed', details);
      }
    },
    undefined,
  );
}

/**
 * Settles a top-up in doubt with what the processor says, completing or releasing the
 * idempotency record its request left behind, and writing the audit row the request could not
 * (the system's). Safe to call more than once and from several processes: only the first
 * settlement of a row has any effect.
 */
export async function settleInDoubt(
  deps: TopUpDeps,
  t: TopUpRow,
  outcome: ChargeLookup,
): Promise<void> {
  const db = deps.store.db;
  if (outcome.status === 'succeeded') {
    await credit(deps, t, outcome.processorRef, true);
  } else if (outcome.status === 'declined') {
    await decline(deps, t, outcome, true);
  } else if (outcome.status === 'not_found') {
    await fail(deps, t, 'the processor has no record of the charge', true);
  } else {
    const wait = Math.min(5 * 2 ** t.checks, MAX_CHECK_INTERVAL_SECONDS);
    await postponeCheck(db, t.ref, iso(addSeconds(deps.clock.now(), wait)));
  }
}

/** Nothing was charged: the top-up failed and the client may simply try again, same key or not. */
async function fail(deps: TopUpDeps, t: TopUpRow, reason: string, late: boolean): Promise<void> {
  const at = iso(deps.clock.now());
  await runWrite(
    deps,
    async (trx) => {
      if (!(await settleTopUp(trx, t.ref, 'failed', { reason, at }))) return;
      if (t.idempotencyKey !== null) {
        await releaseClaim(trx, t.organisationId, t.idempotencyKey, topUpOwner(t.ref));
      }
      if (late) {
        const details = { amount: String(t.amount), reason: 'not_charged', ref: t.ref };
        await auditLate(trx, deps, t, 'topup.failed', details);
      }
    },
    undefined,
  );
}

/** Writes the top-up row before anything is charged (400 when there is no saved card). */
async function recordPending(
  deps: TopUpDeps,
  org: TopUpInput['org'],
  amount: number,
  idempotencyKey: string | null,
  given?: TopUpInput['card'],
): Promise<{ row: TopUpRow; token: string }> {
  const db = deps.store.db;
  const card = given ?? (await findDefaultCard(db, org.id));
  if (card === undefined && deps.payments.name === 'none') {
    // No card can be saved without a processor either: the missing processor is the answer.
    throw unavailable(
      'no payment processor is configured (PAYMENT_GATEWAY=none), so no top-up can be charged',
      PROCESSOR_RETRY_AFTER_SECONDS,
    );
  }
  if (card === undefined) {
    throw badRequest(
      deps.config.mode === 'simulator'
        ? 'no saved card: save a card in the portal first (simulator: esim org card <id> --number 4242424242424242)'
        : 'no saved card: save a card in the portal first',
      'no_card',
    );
  }
  const now = deps.clock.now();
  const timeoutSeconds = Math.ceil(deps.config.paymentTimeoutMs / 1000);
  const pending = { organisationId: org.id, amount, cardId: card.id, idempotencyKey };
  const ref = await insertTopUp(db, {
    ...pending,
    at: iso(now),
    nextCheckAt: iso(addSeconds(now, timeoutSeconds + CRASH_GRACE_SECONDS)),
  });
  return { row: { ...pending, ref, status: 'pending', checks: 0 }, token: card.token };
}

/** The charge went unanswered in time: mark it unknown, settle it if the answer still comes. */
async function unanswered(
  deps: TopUpDeps,
  row: TopUpRow,
  charge: Promise<ChargeOutcome>,
): Promise<DomainError> {
  const later = deps.clock.now();
  await settleTopUp(deps.store.db, row.ref, 'unknown', {
    reason: `no answer within ${deps.config.paymentTimeoutMs} ms`,
    nextCheckAt: iso(addSeconds(later, UNKNOWN_RETRY_AFTER_SECONDS)),
    at: iso(later),
  });
  // The answer may still come; if it does, settle at once. If not (or this fails),
  // reconciliation asks the processor.
  charge.then(
    (outcome) => settleInDoubt(deps, { ...row, status: 'unknown' }, outcome).catch(() => undefined),
    () => undefined,
  );
  return unavailable(
    'the payment processor did not answer in time; the charge is being confirmed and, if it ' +
      'went through, will be credited once',
    UNKNOWN_RETRY_AFTER_SECONDS,
  );
}

/**
 * Runs `settle`, the request's write that settles its top-up as `to`. When that write's commit is
 * unknown (the connection went during it: 503 commit_unknown), the top-up is read back on a
 * connection of its own: found settled as `to`, the write (or another settler's) stayed, and
 * undefined says so; found otherwise, or not read, the doubt stands and the error is thrown.
 */
async function settledOrInDoubt<T>(
  deps: TopUpDeps,
  ref: number,
  to: 'succeeded' | 'declined' | 'failed',
  settle: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await settle();
  } catch (error) {
    if (!commitUnknown(error)) throw error;
    const status = await topUpStatus(deps.store.db, ref).catch(() => undefined);
    if (status !== to) throw error;
    return undefined;
  }
}

/**
 * The top-up process: the row, then the charge, then the credit. Just before the charge is
 * sent, the request's Idempotency-Key claim is handed to the top-up itself (`topUpOwner`), which
 * finishes it with the outcome: in the crediting transaction, or later by reconciliation if the
 * answer is lost or the process dies.
 */
export async function topUp(
  deps: TopUpDeps,
  input: TopUpInput,
  claim: ProcessClaim,
): Promise<TopUpResult> {
  const { org } = input;
  const amount = parseAmount(input.rawAmount, deps.config);
  const { row, token } = await recordPending(deps, org, amount, claim.key ?? null, input.card);
  await claim.handOver(topUpOwner(row.ref), 24 * 3600);
  const charge = deps.payments.charge({
    token,
    amount,
    currency: org.currency,
    reference: chargeReference(row.ref),
  });
  let answer: Timed;
  try {
    answer = await withTimeout(charge, deps.config.paymentTimeoutMs, deps.wallClock);
  } catch (error) {
    if (!(error instanceof GatewayUnavailableError)) throw error;
    await settledOrInDoubt(deps, row.ref, 'failed', () => fail(deps, row, error.message, false));
    throw unavailable(
      `payment processor unavailable, nothing was charged: ${error.message}`,
      PROCESSOR_RETRY_AFTER_SECONDS,
    );
  }
  if (answer.kind === 'timeout') throw await unanswered(deps, row, charge);
  const outcome = answer.outcome;
  if (outcome.status === 'declined') {
    await settledOrInDoubt(deps, row.ref, 'declined', () => decline(deps, row, outcome, false));
    throw declinedError(outcome);
  }
  const result = await settledOrInDoubt(deps, row.ref, 'succeeded', () =>
    credit(deps, row, outcome.processorRef, false),
  );
  if (result !== undefined) return result;
  // Settled meanwhile by someone else (reconciliation after a very slow answer), or by this
  // request's credit whose commit's answer was lost: credited once.
  const funds = await readFunds(deps.store.db, org.id);
  return { amount, balance: funds?.balance ?? 0, ref: row.ref };
}

export interface ReconcileOptions {
  readonly limit?: number;
  /**
   * The pass a process makes when it starts: every top-up in doubt is looked up at once, due or
   * not, so charges cut by a crash are settled (and their idempotency records completed) as soon
   * as the processor has decided them, instead of when their next check falls due. Only what
   * the processor knows is acted on: a charge it has no record of may belong to a request still
   * running in another instance (its charge not yet arrived), so that one keeps its schedule.
   */
  readonly atStart?: boolean;
}

/** One pass of reconciliation over top-ups in doubt; returns how many were looked at. */
export async function reconcileTopUps(
  deps: TopUpDeps,
  options: ReconcileOptions = {},
): Promise<number> {
  // The start-up pass is unbounded in practice: only a crash leaves rows in doubt, and few.
  const limit = options.limit ?? (options.atStart === true ? 1000 : 50);
  // At start, every row in doubt is due: compare with a time no check can be scheduled after.
  const dueBy = options.atStart === true ? '9999-12-31T23:59:59.999Z' : iso(deps.clock.now());
  const due = await dueForCheck(deps.store.db, dueBy, limit);
  for (const t of due) {
    let outcome: ChargeLookup;
    try {
      outcome = await deps.payments.lookup(chargeReference(t.ref));
    } catch (error) {
      if (!(error instanceof GatewayUnavailableError)) throw error;
      outcome = { status: 'processing' };
    }
    if (options.atStart === true && outcome.status === 'not_found') continue;
    await settleInDoubt(deps, t, outcome);
  }
  return due.length;
}

/**
 * A retry of a top-up whose outcome is in doubt (its Idempotency-Key still held by the top-up,
 * so the retry met 409 idempotency_in_progress): asks the processor now instead of at the next
 * scheduled check, and settles the top-up if the processor has decided. True when the top-up was
 * settled, so the retry can be answered with the outcome. As at start-up, only a decision is
 * acted on: "no record" may mean the first request's charge is still on its way.
 */
export async function settleOnRetry(
  deps: TopUpDeps,
  organisationId: string,
  key: string,
): Promise<boolean> {
  const t = await findInDoubtByKey(deps.store.db, organisationId, key);
  if (t === undefined) return false;
  let outcome: ChargeLookup;
  try {
    outcome = await deps.payments.lookup(chargeReference(t.ref));
  } catch (error) {
    if (error instanceof GatewayUnavailableError) return false;
    throw error;
  }
  if (outcome.status !== 'succeeded' && outcome.status !== 'declined') return false;
  await settleInDoubt(deps, t, outcome);
  return true;
}
