import { iso } from '../../clock.js';
import type { CardInput } from '../../payments/gateway.js';
import { GatewayUnavailableError } from '../../payments/gateway.js';
import { parseExpiry } from '../../payments/cards.js';
import type { SavedCard } from '../../store/repositories/payment-repository.js';
import {
  findDefaultCard,
  insertCard,
  makeDefaultCard,
} from '../../store/repositories/payment-repository.js';
import type { AuditActor } from '../audit.js';
import { audit } from '../audit.js';
import { badRequest, unavailable } from '../errors.js';
import type { TopUpDeps } from '../top-up.js';
import { parseAmount } from '../top-up.js';
import type { TopUpOnce } from './top-up-once.js';
import { topUpOnce } from './top-up-once.js';

// Saving a card in the portal, with its first payment (spec: "the first payment is made and the
// card saved through the portal"). The number goes to the payment gateway once, for a token; the
// card is stored but not used by top-ups until its first payment succeeds, and only then becomes
// the card POST /organisation/balance charges. A declined first payment leaves the saved card as
// it was and answers the processor's reason.

export interface CardForm {
  readonly number: string;
  readonly expiry: string;
  readonly cvc: string;
  readonly amount: string;
}

/** The card fields, checked before anything is sent: each error names its field. */
export function parseCardForm(form: CardForm): CardInput {
  const number = form.number.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number)) {
    throw badRequest('card number must be 12 to 19 digits', 'validation_failed');
  }
  let expiry: { expMonth: number; expYear: number };
  try {
    expiry = parseExpiry(form.expiry);
  } catch {
    throw badRequest('expiry must be MM/YY, e.g. 12/30', 'validation_failed');
  }
  if (expiry.expMonth < 1 || expiry.expMonth > 12) {
    throw badRequest('expiry month must be 01 to 12', 'validation_failed');
  }
  if (!/^\d{3,4}$/.test(form.cvc.trim())) {
    throw badRequest('security code must be 3 or 4 digits', 'validation_failed');
  }
  return { number, ...expiry };
}

export interface SavedWithPayment extends TopUpOnce {
  readonly card: SavedCard;
}

/** Tokenises the card, charges the first payment on it and, if it succeeds, saves it as the default. */
export async function saveCardWithPayment(
  deps: TopUpDeps,
  org: { id: string; currency: string },
  form: CardForm,
  key: string,
  who: AuditActor,
): Promise<SavedWithPayment> {
  const input = parseCardForm(form);
  parseAmount(form.amount, deps.config);
  let card: SavedCard | undefined;
  const outcome = await topUpOnce(deps, org, form.amount, key, who, {
    async prepare() {
      let token;
      try {
        token = await deps.payments.tokenise(input);
      } catch (error) {
        if (error instanceof GatewayUnavailableError) throw unavailable(error.message, 30);
        throw error;
      }
      card = {
        id: deps.random.uuid(),
        organisationId: org.id,
        token: token.token,
        brand: token.brand,
        last4: token.last4,
        expMonth: token.expMonth,
        expYear: token.expYear,
        isDefault: false,
        createdAt: iso(deps.clock.now()),
      };
      await insertCard(deps.store.db, card);
      return card;
    },
    async succeeded() {
      const saved = card;
      if (saved === undefined) return;
      await deps.store.db.transaction().execute(async (trx) => {
        await makeDefaultCard(trx, org.id, saved.id);
        await audit(trx, who, {
          action: 'card.saved',
          organisationId: org.id,
          at: deps.clock.now(),
          details: { cardId: saved.id, brand: saved.brand, last4: saved.last4 },
        });
      });
      card = { ...saved, isDefault: true };
    },
  });
  // A repeat of a form already submitted answers the first outcome: the card it saved.
  const saved = card ?? (await findDefaultCard(deps.store.db, org.id));
  if (saved === undefined) throw badRequest('no card was saved; submit the form again');
  return { ...outcome, card: saved };
}
