import { badRequest } from '../../domain/errors/error-codes.js';
import { formatMoney } from '../format.js';

// People type money as money ("100", "100.50", "1,000.00"); the top-up rules take whole minor
// units. The conversion is exact (no floating point), and the limits are checked here so the
// message can speak in money rather than in cents.

function fractionDigits(currency: string): number {
  return (
    new Intl.NumberFormat('en-US', { style: 'currency', currency }).resolvedOptions()
      .maximumFractionDigits ?? 2
  );
}

/** "1,000.50" in USD to "100050", or a 400 naming the amount. */
export function minorUnitsOf(
  raw: string,
  currency: string,
  limits: { topUpMin: number; topUpMax: number },
): string {
  const digits = fractionDigits(currency);
  const text = raw.trim().replace(/,/g, '');
  const pattern =
    digits === 0 ? /^(\d{1,15})$/ : new RegExp(`^(\\d{1,15})(?:\\.(\\d{1,${digits}}))?$`);
  const match = pattern.exec(text);
  if (match === null) {
    const example = digits === 0 ? '100' : `100.${'0'.repeat(digits)}`;
    throw badRequest(
      `amount must be an amount of ${currency} such as ${example}`,
      'invalid_amount',
    );
  }
  const whole = match[1] ?? '0';
  const fraction = (match[2] ?? '').padEnd(digits, '0');
  const minor = Number(whole) * 10 ** digits + Number(fraction === '' ? '0' : fraction);
  if (minor < limits.topUpMin) {
    throw badRequest(
      `amount must be at least ${formatMoney(limits.topUpMin, currency)}`,
      'invalid_amount',
    );
  }
  if (!Number.isSafeInteger(minor) || minor > limits.topUpMax) {
    throw badRequest(
      `amount must be at most ${formatMoney(limits.topUpMax, currency)}`,
      'invalid_amount',
    );
  }
  return String(minor);
}
