import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import type { RefundResult } from '../../../domain/inventory/inventory-refund.js';
import { refundUnits } from '../../../domain/inventory/inventory-refund.js';
import { runUseCase } from '../../../domain/runner/use-case-runner.js';
import type { Api } from '../../api.js';
import {
  IdempotencyHeaders,
  idempotencyConflict,
  idempotencyOf,
  replyWith,
} from '../../idempotency.js';
import { ErrorRef, headerOnlySecurity, standardErrors } from '../../schemas/common.js';

export const REFUND_STATUS = 'Successfully refunded bundles to balance';

const RefundResult = Type.Object(
  {
    status: Type.String({ description: `"${REFUND_STATUS}", as the live service answers.` }),
    usageId: Type.Integer({ description: 'The inventory batch refunded from.' }),
    name: Type.String({ description: 'Bundle name.' }),
    quantity: Type.Integer({ description: 'Units refunded.' }),
    remaining: Type.Integer({ description: 'Unapplied units left in the batch.' }),
    orderReference: Type.String({ description: 'The order the units were bought in.' }),
    amount: Type.Integer({
      description:
        'Purchase price of the refunded units, minor units of the organisation currency.',
    }),
    refundedToBalance: Type.Integer({ description: 'Part of amount credited to the balance.' }),
    refundedToTestCredit: Type.Integer({
      description:
        'Part of amount credited back to test credit (the order paid it from test credit). Test ' +
        'credit that has expired since the order is not given back, so the two parts can sum to less than amount.',
    }),
    balance: Type.Integer({ description: 'Balance after the refund, minor units.' }),
    testCredit: Type.Integer({ description: 'Test credit after the refund, minor units.' }),
  },
  {
    title: 'InventoryRefundResult',
    description: 'The units left the inventory and their price went back to the organisation.',
  },
);

const refundBody = (done: RefundResult) => ({
  status: REFUND_STATUS,
  usageId: done.usageId,
  name: done.bundle,
  quantity: done.quantity,
  remaining: done.remaining,
  orderReference: done.orderReference,
  amount: done.amount,
  refundedToBalance: done.toBalance,
  refundedToTestCredit: done.toTestCredit,
  balance: done.balance,
  testCredit: done.testCredit,
});

export function registerRefundInventory(app: Api, deps: AppDeps): void {
  const days = deps.config.inventoryRefundDays;
  const schema = {
    tags: ['Inventory'],
    operationId: 'refundInventory',
    summary: 'Refund unapplied inventory bundles to the balance',
    description:
      'Takes quantity unapplied units out of one inventory batch (usageId is the id of an ' +
      'available[] entry of GET /inventory) and credits their purchase price back: to the balance ' +
      'up to what the order paid from the balance, the rest to test credit. Allowed within ' +
      `${days} days of the purchase (INVENTORY_REFUND_DAYS; 0 turns refunds off) and while the ` +
      'units have not lapsed. A unit refunded to inventory by a revoke keeps the purchase date ' +
      'and price of the order it was bought in. One journal entry (kind refund) per call.',
    security: headerOnlySecurity,
    headers: IdempotencyHeaders,
    body: Type.Object(
      {
        usageId: Type.Integer({
          minimum: 1,
          maximum: Number.MAX_SAFE_INTEGER,
          description: 'Id of the inventory batch (available[].id in GET /inventory).',
        }),
        quantity: Type.Integer({
          minimum: 1,
          maximum: 1_000_000,
          description: 'Units to refund, at most the batch remaining.',
        }),
      },
      { additionalProperties: false },
    ),
    response: {
      200: RefundResult,
      400: {
        ...ErrorRef,
        description:
          'Bad field, quantity above what is left (insufficient_inventory), units lapsed ' +
          '(inventory_lapsed), refund window closed (refund_window_closed) or refunds turned off ' +
          '(refunds_disabled).',
      },
      403: standardErrors[403],
      404: { ...ErrorRef, description: 'No such usageId, or it belongs to another organisation.' },
      409: idempotencyConflict,
      500: standardErrors[500],
    },
  };
  app.post('/inventory/refund', { schema }, async (request, reply) => {
    const input = {
      organisationId: request.organisation.id,
      usageId: request.body.usageId,
      quantity: request.body.quantity,
    };
    const outcome = await runUseCase(deps, refundUnits, input, {
      idempotency: idempotencyOf(request),
      present: refundBody,
    });
    return replyWith(reply, outcome);
  });
}
