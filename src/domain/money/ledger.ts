import { iso } from '../../clock.js';
import type { Db, Executor } from '../../store/database.js';
import type {
  Balances,
  DebitDecision,
  Funds,
  LedgerMovement,
} from '../../store/repositories/ledger-repository.js';
import {
  applyMovement,
  brokenLinks,
  debit,
  findExpiredTestCredit,
  journalTotals,
  lockFunds,
  setTestCreditExpiry,
} from '../../store/repositories/ledger-repository.js';
import { DomainError, badRequest, notFound } from '../errors/error-codes.js';
import { runWrite } from '../runner/use-case-runner.js';

// The rules of an organisation's money. Every change goes through applyMovement inside the
// caller's transaction, so balance and testCredit always equal the sums of the journal.
//
// Spending rule: a charge is paid from test credit first, while the test credit is unexpired
// (no expiry means it does not expire), and the rest from the balance. Expired test credit is
// never spent: it is written off (a test_credit_expiry entry) by the first charge or sweep that
// sees it expired.

export type { Funds } from '../../store/repositories/ledger-repository.js';

export function testCreditUsable(funds: Funds, at: Date): boolean {
  return funds.testCreditExpiry === null || funds.testCreditExpiry > iso(at);
}

/** What a charge may draw on now: the balance plus unexpired test credit. */
export function available(funds: Funds, at: Date): number {
  return funds.balance + (testCreditUsable(funds, at) ? funds.testCredit : 0);
}

/** How a charge of `amount` splits between test credit and balance, or undefined if it cannot be paid. */
export function splitCharge(
  funds: Funds,
  amount: number,
  at: Date,
): { fromTestCredit: number; fromBalance: number } | undefined {
  const fromTestCredit = testCreditUsable(funds, at) ? Math.min(funds.testCredit, amount) : 0;
  const fromBalance = amount - fromTestCredit;
  return fromBalance > funds.balance ? undefined : { fromTestCredit, fromBalance };
}

/**
 * An order its funds cannot pay. The message is the API's; the figures are kept so that a surface
 * can say the same in its own terms (the portal shows them as money) without parsing the message.
 */
export class InsufficientBalance extends DomainError {
  constructor(
    /** The order total, in minor units of `currency`. */
    readonly amount: number,
    readonly currency: string,
    readonly balance: number,
    /** Test credit usable now (0 once it has expired). */
    readonly testCredit: number,
  ) {
    super(
      'insufficient_balance',
      `insufficient balance: the order total is ${amount} ${currency} minor units but only ` +
        `${balance + testCredit} is available (balance ${balance}, test credit ${testCredit})`,
    );
  }

  /** What the order may draw on: the balance plus usable test credit. */
  get available(): number {
    return this.balance + this.testCredit;
  }

  /**
   * The figures of a refusal of this kind, also of one an Idempotency-Key record kept (which
   * keeps only the code and this message): read back from the message written above.
   */
  static of(error: DomainError): InsufficientBalance | undefined {
    if (error instanceof InsufficientBalance) return error;
    if (error.code !== 'insufficient_balance') return undefined;
    const figures = MESSAGE.exec(error.message);
    if (figures === null) return undefined;
    const [, amount, currency = '', balance, testCredit] = figures;
    return new InsufficientBalance(Number(amount), currency, Number(balance), Number(testCredit));
  }
}

const MESSAGE =
  /^insufficient balance: the order total is (\d+) ([A-Z]{3}) minor units but only \d+ is available \(balance (-?\d+), test credit (\d+)\)$/;

export function insufficientFunds(
  amount: number,
  funds: Funds,
  currency: string,
  at: Date,
): InsufficientBalance {
  const usable = testCreditUsable(funds, at) ? funds.testCredit : 0;
  return new InsufficientBalance(amount, currency, funds.balance, usable);
}

export interface Charge {
  organisationId: string;
  currency: string;
  amount: number;
  kind: 'order';
  reference: string;
  description: string;
  at: Date;
  /** Balances read earlier (e.g. with the caller's credentials): tried first without a lock. */
  snapshot?: Funds;
}

/** The journal movement of a charge, split as splitCharge split it. */
function debitOf(
  c: Charge,
  split: { fromTestCredit: number; fromBalance: number },
): LedgerMovement {
  return {
    organisationId: c.organisationId,
    kind: c.kind,
    balanceDelta: -split.fromBalance,
    testCreditDelta: -split.fromTestCredit,
    reference: c.reference,
    description: c.description,
    at: iso(c.at),
  };
}

/** The journal movement that writes off expired test credit. */
function writeOffOf(organisationId: string, funds: Funds, at: Date): LedgerMovement {
  return {
    organisationId,
    kind: 'test_credit_expiry',
    balanceDelta: 0,
    testCreditDelta: -funds.testCredit,
    reference: organisationId,
    description: `test credit expired at ${funds.testCreditExpiry ?? ''}`,
    at: iso(at),
  };
}

async function writeOffExpired(
  trx: Executor,
  organisationId: string,
  funds: Funds,
  at: Date,
): Promise<boolean> {
  const done = await applyMovement(trx, {
    ...writeOffOf(organisationId, funds, at),
    expectTestCredit: funds.testCredit,
  });
  if (done !== undefined) await setTestCreditExpiry(trx, organisationId, null);
  return done !== undefined;
}

/**
 * The spending rule applied to a charge, on the funds the store shows: expired test credit is
 * written off first, then the charge split. Insufficient funds: 400 when the funds are exact,
 * else undefined (the store shows the locked row next).
 */
function decideCharge(c: Charge, funds: Funds, exact: boolean): DebitDecision | undefined {
  const expired = funds.testCredit > 0 && !testCreditUsable(funds, c.at);
  const left = expired ? { ...funds, testCredit: 0, testCreditExpiry: null } : funds;
  const split = splitCharge(left, c.amount, c.at);
  if (split === undefined) {
    if (exact) throw insufficientFunds(c.amount, left, c.currency, c.at);
    return undefined;
  }
  const charged = debitOf(c, split);
  return expired
    ? { writeOff: writeOffOf(c.organisationId, funds, c.at), debit: charged }
    : { debit: charged };
}

/**
 * Debits a charge in the caller's transaction, following the spending rule: the rule decides,
 * and one store call (`debit`) writes the decision, on the snapshot first when there is one (one
 * statement when nothing changed since it), else on the locked row; within a group-commit batch
 * on the funds the batch holds. Insufficient funds: 400 and nothing is written.
 */
export async function charge(trx: Executor, c: Charge): Promise<Balances> {
  const after = await debit(
    trx,
    c.organisationId,
    (funds, exact) => decideCharge(c, funds, exact),
    c.snapshot,
  );
  if (after === undefined) throw notFound(`organisation ${c.organisationId} not found`);
  return after;
}

/** Grants test credit that expires at `expiresAt` (null: never), journaled in the caller's transaction. */
export async function grantTestCredit(
  trx: Executor,
  g: {
    organisationId: string;
    amount: number;
    expiresAt: Date | null;
    description: string;
    at: Date;
  },
): Promise<Balances> {
  if (!Number.isSafeInteger(g.amount) || g.amount <= 0) {
    throw badRequest('test credit amount must be a positive integer');
  }
  const result = await applyMovement(trx, {
    organisationId: g.organisationId,
    kind: 'test_credit_grant',
    balanceDelta: 0,
    testCreditDelta: g.amount,
    reference: g.organisationId,
    description: g.description,
    at: iso(g.at),
  });
  if (result === undefined) throw notFound(`organisation ${g.organisationId} not found`);
  await setTestCreditExpiry(trx, g.organisationId, g.expiresAt === null ? null : iso(g.expiresAt));
  return result;
}

/**
 * The money a new organisation starts with, journaled in the transaction that creates it: an
 * opening balance and opening test credit (expiring at `testCreditExpiresAt`, or never), each
 * only when positive.
 */
export async function openAccount(
  trx: Executor,
  o: {
    organisationId: string;
    balance?: number;
    testCredit?: number;
    testCreditExpiresAt?: Date;
    /** Journal description of the opening balance. */
    description?: string;
    at: Date;
  },
): Promise<void> {
  const { organisationId, balance = 0, testCredit = 0, at } = o;
  if (balance > 0) {
    await applyMovement(trx, {
      organisationId,
      kind: 'opening',
      balanceDelta: balance,
      testCreditDelta: 0,
      reference: organisationId,
      description: o.description ?? 'opening balance',
      at: iso(at),
    });
  }
  if (testCredit > 0) {
    await grantTestCredit(trx, {
      organisationId,
      amount: testCredit,
      expiresAt: o.testCreditExpiresAt ?? null,
      description: 'opening test credit',
      at,
    });
  }
}

/** Writes off test credit whose expiry has passed; returns how many organisations were swept. */
export async function expireTestCredit(db: Db, at: Date): Promise<number> {
  const due = await findExpiredTestCredit(db, iso(at), 100);
  let swept = 0;
  for (const org of due) {
    const done = await runWrite(
      { store: { db } },
      async (trx) => {
        const funds = await lockFunds(trx, org.id);
        if (funds === undefined || funds.testCredit === 0 || testCreditUsable(funds, at)) {
          return false;
        }
        return writeOffExpired(trx, org.id, funds, at);
      },
      undefined,
    );
    if (done) swept += 1;
  }
  return swept;
}

export interface LedgerDifference {
  organisationId: string;
  message: string;
}

export interface LedgerReport {
  organisations: number;
  entries: number;
  differences: LedgerDifference[];
}

/**
 * Recomputes every organisation's balance and test credit from its journal and checks the
 * running balances entry by entry. Any difference is reported; an empty list means the books hold.
 */
export async function verifyLedger(db: Executor): Promise<LedgerReport> {
  const totals = await journalTotals(db);
  const differences: LedgerDifference[] = [];
  for (const t of totals) {
    if (t.balance !== t.journalBalance) {
      differences.push({
        organisationId: t.organisationId,
        message: `balance is ${t.balance} but the journal sums to ${t.journalBalance}`,
      });
    }
    if (t.testCredit !== t.journalTestCredit) {
      differences.push({
        organisationId: t.organisationId,
        message: `testCredit is ${t.testCredit} but the journal sums to ${t.journalTestCredit}`,
      });
    }
  }
  for (const link of await brokenLinks(db)) {
    differences.push({
      organisationId: link.organisationId,
      message:
        `journal entry ${link.id} records balance ${link.balanceAfter} / test credit ` +
        `${link.testCreditAfter} after it, but the previous entry and its deltas give ` +
        `${link.expectedBalance} / ${link.expectedTestCredit}`,
    });
  }
  return {
    organisations: totals.length,
    entries: totals.reduce((n, t) => n + t.entries, 0),
    differences,
  };
}
