import { minorDigits } from '../http/versions/money.js';

// Money as the command line prints it for a person: major units with the currency code, as the
// first start prints the demo balance ("1,000.00 USD"). --json keeps the API's minor units.

const formats = new Map<number, Intl.NumberFormat>();

/** 99214 minor units of USD as "992.14 USD"; 100000 as "1,000.00 USD"; JPY without decimals. */
export function formatAmount(minor: number, currency: string): string {
  return `${formatMajor(minor, currency)} ${currency}`;
}

/** 99214 minor units of USD as "992.14", without the currency (a column of one currency). */
export function formatMajor(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  let format = formats.get(digits);
  if (format === undefined) {
    format = new Intl.NumberFormat('en-US', {
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    });
    formats.set(digits, format);
  }
  return format.format(minor / 10 ** digits);
}
