import type { DomainError } from '../../../domain/errors/error-codes.js';
import { InsufficientBalance } from '../../../domain/money/ledger.js';
import { TopUpOutOfRange } from '../../../domain/money/top-up.js';
import { digitsToMajorText, toMajorText } from '../money.js';

// The message of a refusal, in the money of the version: minor units to v2.3, as the domain
// writes it; major units from v2.4, as every amount of those versions reads (an insufficient
// balance, and a top-up amount outside TOPUP_MIN..TOPUP_MAX).

/** A version's message of a refusal, to an organisation of `currency` (unknown before sign-in). */
export type ErrorMessage = (error: DomainError, currency: string | undefined) => string;

export const MESSAGE_V21: ErrorMessage = (error) => error.message;

export const MESSAGE_V24: ErrorMessage = (error, currency) => {
  const range = TopUpOutOfRange.of(error);
  if (range !== undefined && currency !== undefined) {
    // `amount must be at least 5.00 USD, got 1.00`: the limit and the amount asked for.
    return (
      `amount must be at ${range.bound} ${toMajorText(range.limit, currency)} ${currency}, ` +
      `got ${digitsToMajorText(range.amount, currency)}`
    );
  }
  const refusal = InsufficientBalance.of(error);
  if (refusal === undefined) return error.message;
  const major = (minor: number) => toMajorText(minor, refusal.currency);
  return (
    `insufficient balance: the order total is ${major(refusal.amount)} ${refusal.currency} but ` +
    `only ${major(refusal.available)} is available (balance ${major(refusal.balance)}, test ` +
    `credit ${major(refusal.testCredit)})`
  );
};
