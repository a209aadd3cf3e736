import type { Clock } from '../clock.js';
import { iso } from '../clock.js';
import type { AuditActor } from '../domain/audit.js';
import { audit, systemActor } from '../domain/audit.js';
import { badRequest, notFound, unavailable } from '../domain/errors.js';
import type { RandomSource } from '../random.js';
import type { Db } from '../store/database.js';
import { findOrganisationById } from '../store/repositories/organisation-repository.js';
import type { SavedCard } from '../store/repositories/payment-repository.js';
import { insertDefaultCard } from '../store/repositories/payment-repository.js';
import type { CardInput, PaymentGateway } from './gateway.js';
import { GatewayUnavailableError } from './gateway.js';

// Saving a card: the number goes to the gateway once, for a token; the service keeps the token,
// brand, last four digits and expiry, and the newest card becomes the one top-up charges. The
// portal's card form and the CLI both come through here.

export interface CardDeps {
  readonly store: { readonly db: Db };
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly payments: PaymentGateway;
  /** Who saves the card, for the audit log (the system when not given). */
  readonly actor?: AuditActor;
}

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

export async function saveCard(
  deps: CardDeps,
  organisationId: string,
  card: CardInput,
): Promise<SavedCard> {
  if ((await findOrganisationById(deps.store.db, organisationId)) === undefined) {
    throw notFound(`organisation ${organisationId} not found`);
  }
  let token;
  try {
    token = await deps.payments.tokenise(card);
  } catch (error) {
    if (error instanceof GatewayUnavailableError) throw unavailable(error.message, 30);
    throw error;
  }
  const saved: SavedCard = {
    id: deps.random.uuid(),
    organisationId,
    token: token.token,
    brand: token.brand,
    last4: token.last4,
    expMonth: token.expMonth,
    expYear: token.expYear,
    isDefault: true,
    createdAt: iso(deps.clock.now()),
  };
  await deps.store.db.transaction().execute(async (trx) => {
    await insertDefaultCard(trx, saved);
    await audit(trx, deps.actor ?? systemActor, {
      action: 'card.saved',
      organisationId,
      at: deps.clock.now(),
      details: { cardId: saved.id, brand: saved.brand, last4: saved.last4 },
    });
  });
  return saved;
}

export function describeCard(card: SavedCard): string {
  const month = String(card.expMonth).padStart(2, '0');
  return `${card.brand} ending ${card.last4}, expires ${month}/${String(card.expYear).slice(-2)}`;
}
