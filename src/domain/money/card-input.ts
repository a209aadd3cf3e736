import type { Clock } from '../../clock.js';
import type { SavedCard } from '../../store/repositories/payment-repository.js';
import { badRequest } from '../errors/error-codes.js';

// Card input and display: the expiry a person types, the one a test card gets, and how a saved
// card is named. Saving a card is the use case `saveCard` (save-card.ts).

/** "MM/YY" or "MM/YYYY" to a month and a four-digit year. */
export function parseExpiry(raw: string): { expMonth: number; expYear: number } {
  const match = /^(\d{1,2})\s*\/\s*(\d{2}|\d{4})$/.exec(raw.trim());
  if (match === null) throw badRequest(`card expiry must be MM/YY, got "${raw}"`);
  const expMonth = Number(match[1]);
  const year = Number(match[2]);
  return { expMonth, expYear: year < 100 ? 2000 + year : year };
}

/** An expiry a few years ahead, for test cards saved without one. */
export function defaultExpiry(clock: Clock): { expMonth: number; expYear: number } {
  const now = clock.now();
  return { expMonth: 12, expYear: now.getUTCFullYear() + 5 };
}

export function describeCard(card: SavedCard): string {
  const month = String(card.expMonth).padStart(2, '0');
  return `${card.brand} ending ${card.last4}, expires ${month}/${String(card.expYear).slice(-2)}`;
}
