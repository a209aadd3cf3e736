import type { Selectable } from 'kysely';
import type { Executor } from '../database.js';
import type { PaymentCardsTable } from '../schema.js';

// Saved cards (tokens only: brand, last four, expiry) and the built-in test processor's record
// of the charges it received.

export interface SavedCard {
  id: string;
  organisationId: string;
  token: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  isDefault: boolean;
  createdAt: string;
}

/** Saves a card as the organisation's default (the one top-up charges). */
export async function insertDefaultCard(trx: Executor, card: SavedCard): Promise<void> {
  await trx
    .updateTable('payment_cards')
    .set({ is_default: 0 })
    .where('organisation_id', '=', card.organisationId)
    .where('is_default', '=', 1)
    .execute();
  await trx
    .insertInto('payment_cards')
    .values({
      id: card.id,
      organisation_id: card.organisationId,
      token: card.token,
      brand: card.brand,
      last4: card.last4,
      exp_month: card.expMonth,
      exp_year: card.expYear,
      is_default: 1,
      created_at: card.createdAt,
    })
    .execute();
}

/** Saves a card that is not (yet) the default: one whose first payment is still to be made. */
export async function insertCard(trx: Executor, card: SavedCard): Promise<void> {
  await trx
    .insertInto('payment_cards')
    .values({
      id: card.id,
      organisation_id: card.organisationId,
      token: card.token,
      brand: card.brand,
      last4: card.last4,
      exp_month: card.expMonth,
      exp_year: card.expYear,
      is_default: card.isDefault ? 1 : 0,
      created_at: card.createdAt,
    })
    .execute();
}

/** Makes a saved card the one top-up charges. */
export async function setDefaultCard(
  trx: Executor,
  organisationId: string,
  cardId: string,
): Promise<void> {
  await trx
    .updateTable('payment_cards')
    .set((eb) => ({ is_default: eb.case().when('id', '=', cardId).then(1).else(0).end() }))
    .where('organisation_id', '=', organisationId)
    .execute();
}

function toCard(r: Selectable<PaymentCardsTable>): SavedCard {
  return {
    id: r.id,
    organisationId: r.organisation_id,
    token: r.token,
    brand: r.brand,
    last4: r.last4,
    expMonth: Number(r.exp_month),
    expYear: Number(r.exp_year),
    isDefault: Number(r.is_default) === 1,
    createdAt: r.created_at,
  };
}

export async function findDefaultCard(
  db: Executor,
  organisationId: string,
): Promise<SavedCard | undefined> {
  const row = await db
    .selectFrom('payment_cards')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .where('is_default', '=', 1)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
  return row === undefined ? undefined : toCard(row);
}

/** One of an organisation's saved cards, default or not. */
export async function findCard(
  db: Executor,
  organisationId: string,
  cardId: string,
): Promise<SavedCard | undefined> {
  const row = await db
    .selectFrom('payment_cards')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .where('id', '=', cardId)
    .executeTakeFirst();
  return row === undefined ? undefined : toCard(row);
}

export interface ProcessorCharge {
  reference: string;
  token: string;
  amount: number;
  currency: string;
  status: 'processing' | 'succeeded' | 'declined';
  declineCode: string | null;
  processorRef: string;
  at: string;
}

export async function insertProcessorCharge(db: Executor, c: ProcessorCharge): Promise<void> {
  await db
    .insertInto('test_processor_charges')
    .values({
      reference: c.reference,
      token: c.token,
      amount: c.amount,
      currency: c.currency,
      status: c.status,
      decline_code: c.declineCode,
      processor_ref: c.processorRef,
      created_at: c.at,
      updated_at: c.at,
    })
    .execute();
}

/**
 * Decides a charge still processing; false when it was decided already (by the process that
 * received it, or by a lookup after that process died).
 */
export async function finishProcessorCharge(
  db: Executor,
  reference: string,
  status: 'succeeded' | 'declined',
  declineCode: string | null,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('test_processor_charges')
    .set({ status, decline_code: declineCode, updated_at: at })
    .where('reference', '=', reference)
    .where('status', '=', 'processing')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface ProcessorChargeState {
  status: string;
  declineCode: string | null;
  processorRef: string;
  token: string;
  receivedAt: string;
}

export async function findProcessorCharge(
  db: Executor,
  reference: string,
): Promise<ProcessorChargeState | undefined> {
  const row = await db
    .selectFrom('test_processor_charges')
    .select(['status', 'decline_code', 'processor_ref', 'token', 'created_at'])
    .where('reference', '=', reference)
    .executeTakeFirst();
  return row === undefined
    ? undefined
    : {
        status: row.status,
        declineCode: row.decline_code,
        processorRef: row.processor_ref,
        token: row.token,
        receivedAt: row.created_at,
      };
}
