// Money on the wire of v2.4 and later: a JSON number in major units (9.99 USD), where v2.1 writes
// an integer in minor units (999). The domain and the database keep minor units; only the answer
// is converted, here, and a request amount on the way in.

const FALLBACK_DIGITS = 2;
const digitsByCurrency = new Map<string, number>();

/** Digits after the decimal point of a currency (2 for USD, 0 for JPY). */
export function minorDigits(currency: string): number {
  let digits = digitsByCurrency.get(currency);
  if (digits === undefined) {
    try {
      digits =
        new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions()
          .maximumFractionDigits ?? FALLBACK_DIGITS;
    } catch {
      digits = FALLBACK_DIGITS; // not an ISO 4217 code Intl knows
    }
    digitsByCurrency.set(currency, digits);
  }
  return digits;
}

/**
 * 999 minor units of USD as 9.99. The quotient of two exact integers is the double nearest the
 * decimal, so it prints with no binary noise (229 / 100 writes 2.29).
 */
export function toMajor(minor: number, currency: string): number {
  const digits = minorDigits(currency);
  return digits === 0 ? minor : minor / 10 ** digits;
}

/** A major-unit amount as minor units, rounded to the nearest unit (9.99 USD is 999). */
export function toMinor(major: number, currency: string): number {
  return Math.round(major * 10 ** minorDigits(currency));
}

/** 99001 minor units of USD as "990.01": the digits of the minor amount, no float involved. */
export function toMajorText(minor: number, currency: string): string {
  return minor < 0
    ? `-${digitsToMajorText(String(-minor), currency)}`
    : digitsToMajorText(String(minor), currency);
}

/** "99001", the digits of a whole number of minor units of USD, as "990.01", however long. */
export function digitsToMajorText(minorDigitsText: string, currency: string): string {
  const digits = minorDigits(currency);
  if (digits === 0) return minorDigitsText;
  const text = minorDigitsText.padStart(digits + 1, '0');
  return `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}
