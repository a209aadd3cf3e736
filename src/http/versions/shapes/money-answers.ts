import { Type } from '@sinclair/typebox';
import type { TObject } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { badRequest } from '../../../domain/errors/error-codes.js';
import { minorDigits, toMajor } from '../money.js';
import { money, reshaped } from './schema-tools.js';

// The money of the top-up and the inventory refund on v2.4 and later: major units both ways.

type Amounts = Record<string, unknown>;

/** The answer with the named fields in major units of the caller's currency. */
export function inMajorUnits(fields: readonly string[]) {
  return (body: Amounts, request: FastifyRequest): Amounts => {
    const currency = request.organisation.currency;
    const out: Amounts = { ...body };
    for (const field of fields) {
      const value = body[field];
      if (typeof value === 'number') out[field] = toMajor(value, currency);
    }
    return out;
  };
}

/** The schema with the named integer fields as major-unit numbers. */
export function majorUnitSchema(fields: readonly string[]) {
  return (shared: TObject): TObject => {
    const replace: Record<string, ReturnType<typeof money>> = {};
    for (const field of fields) {
      const description = String(shared.properties[field]?.description ?? field)
        .replace(/,? ?in minor units[^.]*\.?/i, '')
        .replace(/,? ?minor units[^.]*\.?/i, '');
      replace[field] = money(description);
    }
    return reshaped(shared, replace);
  };
}

export const TOP_UP_MONEY = ['amount', 'balance'] as const;
export const REFUND_MONEY = [
  'amount',
  'refundedToBalance',
  'refundedToTestCredit',
  'balance',
  'testCredit',
] as const;

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
    );
  }
  const [whole = '0', fraction = ''] = raw.split('.');
  if (fraction.length > digits) {
    throw badRequest(
      `query parameter amount has more than ${digits} decimals for ${request.organisation.currency}`,
    );
  }
  const minor = `${whole}${fraction.padEnd(digits, '0')}`.replace(/^0+(?=\d)/, '');
  query.amount = minor;
}
