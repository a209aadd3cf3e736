import type { DomainError } from '../../../domain/errors/error-codes.js';
import { InsufficientBalance } from '../../../domain/money/ledger.js';
import { toMajorText } from '../money.js';

// The message of a refusal, in the money of the version: minor units to v2.3, as the domain
// writes it; major units from v2.4, as every amount of those versions reads.

/** A version's message of a refusal. */
export type ErrorMessage = (error: DomainError) => string;

export const MESSAGE_V21: ErrorMessage = (error) => error.message;

export const MESSAGE_V24: ErrorMessage = (error) => {
  const refusal = InsufficientBalance.of(error);
  if (refusal === undefined) return error.message;
  const major = (minor: number) => toMajorText(minor, refusal.currency);
  return (
    `insufficient balance: the order total is ${major(refusal.amount)} ${refusal.currency} but ` +
    `only ${major(refusal.available)} is available (balance ${major(refusal.balance)}, test ` +
    `credit ${major(refusal.testCredit)})`
  );
};
