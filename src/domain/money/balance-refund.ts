import type { Clock } from '../../clock.js';
import { addDays, iso } from '../../clock.js';
import type { Executor } from '../../store/database.js';
import { findOwnedBatch, purchaseBatchOf } from '../../store/repositories/inventory-repository.js';
import { insertHistory } from '../../store/repositories/history-repository.js';
import { applyMovement, lockFunds, readFunds } from '../../store/repositories/ledger-repository.js';
import { unitPriceOf } from '../../store/repositories/order-repository.js';
import type { Assignment } from '../esims/lifecycle/assignment.js';
import { badRequest, notFound } from '../errors/error-codes.js';
import { shares } from '../inventory/inventory-refund.js';

// A revoke that refunds an unused assignment to the organisation's money instead of inventory
// (refundToBalance on the live service's later versions). The rules are those of an inventory
// refund: the unit's purchase price, within the refund window counted from the purchase
// (INVENTORY_REFUND_DAYS; 0 turns refunds off), the money going back where the order took it
// from (balance, then unexpired test credit). The movement is journaled as a `refund` under the
// purchase's order reference, in the revoke's transaction, so later refunds of the same order
// see it.

export const HISTORY_REFUNDED_TO_BALANCE = 'Bundle Refunded To Balance';

export interface BalanceRefundDeps {
  readonly clock: Clock;
  readonly config: { readonly inventoryRefundDays: number };
}

export interface BalanceRefund {
  /** The order the unit was bought in. */
  readonly orderReference: string;
  /** The unit's price, minor units. */
  readonly amount: number;
  readonly toBalance: number;
  readonly toTestCredit: number;
}

/** The order a unit was bought in and when: through its inventory batch, or the order that assigned it. */
async function purchaseOf(
  db: Executor,
  assignment: Assignment,
): Promise<{ orderReference: string; createdAt: string }> {
  if (assignment.batchId === null) {
    return { orderReference: assignment.reference, createdAt: assignment.createdAt };
  }
  const batch = await findOwnedBatch(db, assignment.organisationId, Number(assignment.batchId));
  if (batch === undefined) {
    return { orderReference: assignment.reference, createdAt: assignment.createdAt };
  }
  const purchase = await purchaseBatchOf(db, batch);
  return { orderReference: purchase.orderReference, createdAt: purchase.createdAt };
}

/** What refunding an unused assignment to the balance would give back; 400 when a rule is not met. */
export async function planBalanceRefund(
  db: Executor,
  deps: BalanceRefundDeps,
  assignment: Assignment,
  /** Inside the refund's transaction: lock the organisation's funds, so refunds take turns. */
  lock = false,
): Promise<BalanceRefund> {
  const days = deps.config.inventoryRefundDays;
  if (days === 0) {
    throw badRequest('refunds are turned off on this service', 'refunds_disabled');
  }
  const now = deps.clock.now();
  const purchase = await purchaseOf(db, assignment);
  const closes = iso(addDays(new Date(purchase.createdAt), days));
  if (closes <= iso(now)) {
    throw badRequest(
      `query parameter refundToBalance: assignment ${assignment.id} was bought at ${purchase.createdAt}; its ${days}-day refund window closed at ${closes}`,
      'refund_window_closed',
    );
  }
  const price = await unitPriceOf(db, purchase.orderReference, assignment.bundleName);
  if (price === undefined) {
    throw badRequest(
      `query parameter refundToBalance: no purchase price is recorded for assignment ${assignment.id}`,
      'refund_price_unknown',
    );
  }
  const funds = await (lock ? lockFunds : readFunds)(db, assignment.organisationId);
  if (funds === undefined) throw notFound(`organisation ${assignment.organisationId} not found`);
  const split = await shares(db, assignment.organisationId, purchase.orderReference, price, {
    funds,
    now,
  });
  return { orderReference: purchase.orderReference, amount: price, ...split };
}

/**
 * Journals the refund of an assignment the caller has just revoked, in the caller's transaction,
 * and records it in the eSIM history.
 */
export async function refundAssignmentToBalance(
  trx: Executor,
  deps: BalanceRefundDeps,
  assignment: Assignment,
): Promise<BalanceRefund> {
  const refund = await planBalanceRefund(trx, deps, assignment, true);
  const at = iso(deps.clock.now());
  if (refund.toBalance + refund.toTestCredit > 0) {
    const moved = await applyMovement(trx, {
      organisationId: assignment.organisationId,
      kind: 'refund',
      balanceDelta: refund.toBalance,
      testCreditDelta: refund.toTestCredit,
      reference: refund.orderReference,
      description: `revoke refund: ${assignment.bundleName} assignment ${assignment.id} on eSIM ${assignment.iccid}`,
      at,
    });
    if (moved === undefined) {
      throw new Error(`refund for ${assignment.organisationId} could not be applied`);
    }
  }
  await insertHistory(trx, {
    iccid: assignment.iccid,
    name: HISTORY_REFUNDED_TO_BALANCE,
    bundle: assignment.bundleName,
    bundleState: 'Revoked',
    alertType: '',
    at,
  });
  return refund;
}
