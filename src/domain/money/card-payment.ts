import { iso } from '../../clock.js';
import type { CardInput } from './payment-gateway.js';
import { GatewayUnavailableError } from './payment-gateway.js';
import { parseExpiry } from './card-input.js';
import type { Executor } from '../../store/database.js';
import type { SavedCard } from '../../store/repositories/payment-repository.js';
import {
  findDefaultCard,
  insertCard,
  setDefaultCard,
} from '../../store/repositories/payment-repository.js';
import type { AuditAction, AuditActor } from '../audit/audit-log.js';
import { audit } from '../audit/audit-log.js';
import { badRequest, unavailable } from '../errors/error-codes.js';
import type { TopUpDeps, TopUpResult } from './top-up.js';
import { failedTopUpAudit, parseAmount, topUp } from './top-up.js';
import type { ClaimLog } from '../runner/idempotency.js';
import type { ProcessClaim } from '../runner/use-case-runner.js';
import { runProcess, runWrite } from '../runner/use-case-runner.js';
import type { TopUpOnce } from './top-up-once.js';
import { formIdempotency, onceForForm } from './top-up-once.js';

// Saving a card in the portal, with its first payment (spec: "the first payment is made and the
// card saved through the portal"). The number goes to the payment gateway once, for a token; the
// card is stored but not used by top-ups until its first payment succeeds, and only then becomes
// the card POST /organisation/balance charges. A declined first payment leaves the saved card as
// it was and answers the processor's reason. The whole process runs under the form's
// idempotency key, so a double submission tokenises and charges once.

export interface CardForm {
  readonly number: string;
  readonly expiry: string;
  readonly cvc: string;
  /** The first payment, in minor units as digits. */
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

interface FirstPayment {
  readonly org: { readonly id: string; readonly currency: string };
  readonly card: CardInput;
  readonly rawAmount: string;
  readonly actor: AuditActor;
}

/** The new card, stored but not yet the one top-up charges. */
async function storeNewCard(tx: Executor, _deps: TopUpDeps, card: SavedCard): Promise<SavedCard> {
  await insertCard(tx, card);
  return card;
}

/** After the first payment: the card becomes the default, with its audit row. */
async function adoptCard(
  tx: Executor,
  deps: TopUpDeps,
  input: { card: SavedCard; actor: AuditActor },
): Promise<void> {
  const { card } = input;
  await setDefaultCard(tx, card.organisationId, card.id);
  await audit(tx, input.actor, {
    action: 'card.saved',
    organisationId: card.organisationId,
    at: deps.clock.now(),
    details: { cardId: card.id, brand: card.brand, last4: card.last4 },
  });
}

async function tokenised(deps: TopUpDeps, input: FirstPayment): Promise<SavedCard> {
  let token;
  try {
    token = await deps.payments.tokenise(input.card);
  } catch (error) {
    if (error instanceof GatewayUnavailableError) throw unavailable(error.message, 30);
    throw error;
  }
  return {
    id: deps.random.uuid(),
    organisationId: input.org.id,
    token: token.token,
    brand: token.brand,
    last4: token.last4,
    expMonth: token.expMonth,
    expYear: token.expYear,
    isDefault: false,
    createdAt: iso(deps.clock.now()),
  };
}

/** The process: tokenise, store, charge the first payment on the new card, adopt it. */
async function firstPayment(
  deps: TopUpDeps,
  input: FirstPayment,
  claim: ProcessClaim,
): Promise<TopUpResult> {
  const record = (action: AuditAction, details: object) =>
    runWrite(
      deps,
      async (tx) => {
        await audit(tx, input.actor, {
          action,
          organisationId: input.org.id,
          at: deps.clock.now(),
          details: { ...details },
        });
      },
      undefined,
    ).catch(() => undefined);
  // Before the charge nothing was charged, whatever the failure: `topup.failed`, with its reason.
  let card: SavedCard;
  try {
    card = await runWrite(deps, storeNewCard, await tokenised(deps, input));
  } catch (error) {
    await record('topup.failed', failedTopUpAudit(error, input.rawAmount).details);
    throw error;
  }
  let result: TopUpResult;
  try {
    result = await topUp(deps, { org: input.org, rawAmount: input.rawAmount, card }, claim);
  } catch (error) {
    const { action, details } = failedTopUpAudit(error, input.rawAmount);
    await record(action, details);
    throw error;
  }
  // Credited: so recorded, whatever becomes of adopting the card as the default.
  await record('topup.succeeded', result);
  await runWrite(deps, adoptCard, { card, actor: input.actor });
  return result;
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
  log?: ClaimLog,
): Promise<SavedWithPayment> {
  const card = parseCardForm(form);
  parseAmount(form.amount, deps.config);
  const idempotency = {
    ...formIdempotency(org.id, key, form.amount, log),
    leaseSeconds: Math.ceil(deps.config.paymentTimeoutMs / 1000) + 60,
  };
  const input: FirstPayment = { org, card, rawAmount: form.amount, actor: who };
  const outcome = await onceForForm(deps, () =>
    runProcess(deps, firstPayment, input, { idempotency, present: (result) => result }),
  );
  // The card the first payment was made with (a repeat of the form answers the same one).
  const saved = await findDefaultCard(deps.store.db, org.id);
  if (saved === undefined) throw badRequest('no card was saved; submit the form again');
  return { ...outcome, card: saved };
}
