import { sql } from 'kysely';
import type { Executor } from '../database.js';

export interface LedgerMovement {
  organisationId: string;
  kind:
    | 'topup'
    | 'order'
    | 'refund'
    | 'test_credit_grant'
    | 'test_credit_expiry'
    | 'opening'
    | 'adjustment';
  balanceDelta: number;
  testCreditDelta: number;
  reference: string;
  description: string;
  at: string;
}

export interface Balances {
  balance: number;
  testCredit: number;
}

/**
 * Applies a movement to the organisation's balances and journals it, inside the caller's
 * transaction. The update is conditional, so two concurrent debits can never take the balance
 * below zero on either database: the loser sees no row updated and gets `undefined`.
 */
export async function applyMovement(
  trx: Executor,
  m: LedgerMovement,
): Promise<Balances | undefined> {
  const updated = await trx
    .updateTable('organisations')
    .set({
      balance: sql<number>`balance + ${m.balanceDelta}`,
      test_credit: sql<number>`test_credit + ${m.testCreditDelta}`,
      updated_at: m.at,
    })
    .where('id', '=', m.organisationId)
    .where(sql<boolean>`balance + ${m.balanceDelta} >= 0`)
    .where(sql<boolean>`test_credit + ${m.testCreditDelta} >= 0`)
    .returning(['balance', 'test_credit'])
    .executeTakeFirst();
  if (updated === undefined) return undefined;
  await trx
    .insertInto('ledger_entries')
    .values({
      organisation_id: m.organisationId,
      kind: m.kind,
      balance_delta: m.balanceDelta,
      test_credit_delta: m.testCreditDelta,
      balance_after: Number(updated.balance),
      test_credit_after: Number(updated.test_credit),
      reference: m.reference,
      description: m.description,
      created_at: m.at,
    })
    .execute();
  return { balance: Number(updated.balance), testCredit: Number(updated.test_credit) };
}
