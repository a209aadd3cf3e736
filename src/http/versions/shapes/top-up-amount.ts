import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { badRequest } from '../../../domain/errors/error-codes.js';
import { minorDigits } from '../money.js';

// The top-up amount on v2.4 and later: major units ("1000" or "1000.00" is 1,000 USD). A
// malformed amount is `invalid_amount`, the code v2.1 gives it, so a client's handling of the
// code does not change with the version.

const DECIMAL = /^\d+(\.\d+)?$/;

export const TopUpQueryV24 = Type.Object({
  amount: Type.String({
    description:
      'Amount to charge, in major units of the organisation currency (1000 or 1000.00 is 1,000 USD), within TOPUP_MIN and TOPUP_MAX.',
  }),
});

/**
 * v2.4: `amount` in major units ("1000" is 1,000 USD); the shared route reads minor units, so it
 * is converted here, exactly (no float arithmetic on the digits).
 */
export function topUpAmountInMinorUnits(request: FastifyRequest): void {
  const query = request.query as { amount: string };
  const raw = query.amount.trim();
  const digits = minorDigits(request.organisation.currency);
  if (!DECIMAL.test(raw)) {
    throw badRequest(
      `query parameter amount must be a decimal amount in major units, e.g. 1000.00; got "${query.amount}"`,
      'invalid_amount',
    );
  }
  const [whole = '0', fraction = ''] = raw.split('.');
  if (fraction.length > digits) {
    throw badRequest(
      `query parameter amount has more than ${digits} decimals for ${request.organisation.currency}`,
      'invalid_amount',
    );
  }
  const minor = `${whole}${fraction.padEnd(digits, '0')}`.replace(/^0+(?=\d)/, '');
  query.amount = minor;
}
