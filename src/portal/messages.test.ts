import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError, badRequest } from '../domain/errors/error-codes.js';
import { InsufficientBalance } from '../domain/money/ledger.js';
import { inPortalTerms } from './messages.js';

// The portal words the order rules' refusals itself: an unpayable order from the refusal's
// figures, or, replayed under its idempotency key (code and API message only), without them.

describe('portal messages', () => {
  it('words an unpayable order as money, with the test credit when there is some', () => {
    assert.equal(
      inPortalTerms(new InsufficientBalance(12_345, 'USD', 10_000, 0)),
      'Not enough funds: this order costs $123.45 and $100.00 is available. Top up on the Billing page.',
    );
    assert.equal(
      inPortalTerms(new InsufficientBalance(500, 'USD', 100, 200)),
      'Not enough funds: this order costs $5.00 and $3.00 is available (balance $1.00, test credit $2.00). Top up on the Billing page.',
    );
  });

  it('words a replayed refusal without its figures, never in minor units', () => {
    const replayed = new DomainError(
      'insufficient_balance',
      new InsufficientBalance(12_345, 'USD', 10_000, 0).message,
    );
    assert.equal(
      inPortalTerms(replayed),
      'Not enough funds for this order. Top up on the Billing page.',
    );
  });

  it('names a field by its label', () => {
    assert.equal(
      inPortalTerms(badRequest('order[0].quantity must be at most 100')),
      'Quantity must be at most 100',
    );
  });
});
