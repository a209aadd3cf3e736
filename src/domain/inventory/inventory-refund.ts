import type { Clock } from '../../clock.js';
import { addDays, iso } from '../../clock.js';
import type { Db, Executor } from '../../store/database.js';
import {
  findOwnedBatch,
  purchaseBatchOf,
  takeFromBatch,
} from '../../store/repositories/inventory-repository.js';
import {
  applyMovement,
  lockFunds,
  orderPayment,
  refundedFor,
  testCreditExpiredSince,
} from '../../store/repositories/ledger-repository.js';
import { unitPriceOf } from '../../store/repositories/order-repository.js';
import { badRequest, notFound } from '../errors/error-codes.js';
import type { Funds } from '../money/ledger.js';
import { testCreditUsable } from '../money/ledger.js';
import { runWrite } from '../runner/use-case-runner.js';

// Inventory refund (POST /inventory/refund): unapplied units of one purchase batch go back to
// the organisation's money, inside the refund window counted from the purchase. The money goes
// back where the order took it from: to the balance up to what the order paid from the balance
// (less what earlier refunds of that order gave back), the rest to test credit. Test credit that
// has expired since the order is not given back, as it could no longer have been spent.

export interface RefundInput {
  readonly organisationId: string;
  readonly usageId: number;
  readonly quantity: number;
}

export interface RefundResult {
  readonly usageId: number;
  readonly bundle: string;
  readonly quantity: number;
  readonly remaining: number;
  readonly orderReference: string;
  readonly amount: number;
  readonly toBalance: number;
  readonly toTestCredit: number;
  readonly balance: number;
  readonly testCredit: number;
}

export interface RefundDeps {
  readonly store: { readonly db: Db };
  readonly clock: Clock;
  readonly config: { readonly inventoryRefundDays: number };
}

type Batch = NonNullable<Awaited<ReturnType<typeof findOwnedBatch>>>;
type Purchase = Awaited<ReturnType<typeof purchaseBatchOf>>;

/** The batch, its purchase and unit price, once every refund rule is met (400/404 otherwise). */
async function refundable(
  trx: Executor,
  input: RefundInput,
  at: string,
  days: number,
): Promise<{ batch: Batch; purchase: Purchase; price: number }> {
  const { organisationId, usageId, quantity } = input;
  const batch = await findOwnedBatch(trx, organisationId, usageId);
  if (batch === undefined) throw notFound(`inventory usageId ${usageId} not found`);
  if (batch.expiry <= at) {
    throw badRequest(
      `body field usageId: the units of usageId ${usageId} lapsed at ${batch.expiry} and cannot be refunded`,
      'inventory_lapsed',
    );
  }
  const purchase = await purchaseBatchOf(trx, batch);
  const closes = iso(addDays(new Date(purchase.createdAt), days));
  if (closes <= at) {
    throw badRequest(
      `body field usageId: usageId ${usageId} was bought at ${purchase.createdAt}; its ${days}-day refund window closed at ${closes}`,
      'refund_window_closed',
    );
  }
  if (quantity > batch.remaining) {
    throw badRequest(
      `body field quantity: ${quantity} exceeds the ${batch.remaining} unapplied unit${batch.remaining === 1 ? '' : 's'} of usageId ${usageId}`,
      'insufficient_inventory',
    );
  }
  const price = await unitPriceOf(trx, purchase.orderReference, batch.bundleName);
  if (price === undefined) {
    throw badRequest(
      `body field usageId: no purchase price is recorded for usageId ${usageId}`,
      'refund_price_unknown',
    );
  }
  return { batch, purchase, price };
}

/** How much of `amount` goes back to the balance and how much to test credit. */
async function shares(
  trx: Executor,
  organisationId: string,
  orderReference: string,
  amount: number,
  usable: { funds: Funds; now: Date },
): Promise<{ toBalance: number; toTestCredit: number }> {
  const paid = await orderPayment(trx, organisationId, orderReference);
  const refunded = await refundedFor(trx, organisationId, orderReference);
  const toBalance = Math.max(0, Math.min(amount, paid.fromBalance - refunded.balance));
  const creditShare = Math.max(
    0,
    Math.min(amount - toBalance, paid.fromTestCredit - refunded.testCredit),
  );
  // Expired now (still on the books, or spent down to 0 before it lapsed), or written off
  // since the order (the write-off clears the expiry).
  const creditExpired =
    creditShare > 0 &&
    (!testCreditUsable(usable.funds, usable.now) ||
      (await testCreditExpiredSince(trx, organisationId, paid.entryId)));
  return { toBalance, toTestCredit: creditExpired ? 0 : creditShare };
}

/** The use case: refunds units of one batch in the runner's transaction. */
export async function refundUnits(
  trx: Executor,
  deps: RefundDeps,
  input: RefundInput,
): Promise<RefundResult> {
  const days = deps.config.inventoryRefundDays;
  if (days === 0) {
    throw badRequest('inventory refunds are turned off on this service', 'refunds_disabled');
  }
  const now = deps.clock.now();
  const at = iso(now);
  const { organisationId, usageId, quantity } = input;
  // Locks the organisation row first (PostgreSQL), so concurrent refunds of one organisation
  // take turns and each sees what the previous one gave back.
  const funds = await lockFunds(trx, organisationId);
  if (funds === undefined) throw notFound(`organisation ${organisationId} not found`);
  const { batch, purchase, price } = await refundable(trx, input, at, days);
  if (!(await takeFromBatch(trx, batch.id, quantity, at))) {
    throw badRequest(
      `body field quantity: usageId ${usageId} no longer holds ${quantity} unapplied units`,
      'insufficient_inventory',
    );
  }
  const amount = price * quantity;
  const reference = purchase.orderReference;
  const { toBalance, toTestCredit } = await shares(trx, organisationId, reference, amount, {
    funds,
    now,
  });
  let balances = { balance: funds.balance, testCredit: funds.testCredit };
  if (toBalance + toTestCredit > 0) {
    const moved = await applyMovement(trx, {
      organisationId,
      kind: 'refund',
      balanceDelta: toBalance,
      testCreditDelta: toTestCredit,
      reference,
      description: `inventory refund: ${quantity} x ${batch.bundleName} from usageId ${usageId}`,
      at,
    });
    if (moved === undefined) throw new Error(`refund for ${organisationId} could not be applied`);
    balances = moved;
  }
  return {
    usageId,
    bundle: batch.bundleName,
    quantity,
    remaining: batch.remaining - quantity,
    orderReference: reference,
    amount,
    toBalance,
    toTestCredit,
    balance: balances.balance,
    testCredit: balances.testCredit,
  };
}

/** Refunds units of one batch in a transaction of its own (the CLI's `esim inventory refund`). */
export function refundInventory(deps: RefundDeps, input: RefundInput): Promise<RefundResult> {
  return runWrite(deps, refundUnits, input);
}
