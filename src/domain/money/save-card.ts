import type { Clock } from '../../clock.js';
import { iso } from '../../clock.js';
import type { CardInput, PaymentGateway } from './payment-gateway.js';
import { GatewayUnavailableError } from './payment-gateway.js';
import type { RandomSource } from '../../random.js';
import type { Db, Executor } from '../../store/database.js';
import { findOrganisationById } from '../../store/repositories/organisation-repository.js';
import type { SavedCard } from '../../store/repositories/payment-repository.js';
import { insertDefaultCard } from '../../store/repositories/payment-repository.js';
import type { AuditActor } from '../audit/audit-log.js';
import { audit, systemActor } from '../audit/audit-log.js';
import { notFound, unavailable } from '../errors/error-codes.js';
import { runWrite } from '../runner/use-case-runner.js';

// Saving a card: the number goes to the gateway once, for a token (the gateway is an adapter,
// src/payments/); the service keeps the token, brand, last four digits and expiry, and the
// newest card becomes the one top-up charges, with its audit row, in one transaction. The
// portal's card form and the CLI both come through here.

export interface CardDeps {
  readonly store: { readonly db: Db };
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly payments: PaymentGateway;
  /** Who saves the card, for the audit log (the system when not given). */
  readonly actor?: AuditActor;
}

/** The use case's write: the card becomes the default, with its audit row. */
export async function storeCard(
  tx: Executor,
  deps: CardDeps,
  saved: SavedCard,
): Promise<SavedCard> {
  await insertDefaultCard(tx, saved);
  await audit(tx, deps.actor ?? systemActor, {
    action: 'card.saved',
    organisationId: saved.organisationId,
    at: deps.clock.now(),
    details: { cardId: saved.id, brand: saved.brand, last4: saved.last4 },
  });
  return saved;
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
  return runWrite(deps, storeCard, {
    id: deps.random.uuid(),
    organisationId,
    token: token.token,
    brand: token.brand,
    last4: token.last4,
    expMonth: token.expMonth,
    expYear: token.expYear,
    isDefault: true,
    createdAt: iso(deps.clock.now()),
  });
}
