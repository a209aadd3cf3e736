import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { refundUnits } from '../../../domain/inventory/inventory-refund.js';
import { runUseCase } from '../../../domain/runner/use-case-runner.js';
import type { Api } from '../../api.js';
import {
  IdempotencyHeaders,
  idempotencyConflict,
  idempotencyOf,
  replyPresented,
} from '../../idempotency.js';
import { ErrorRef, headerOnlySecurity, standardErrors } from '../../schemas/common.js';
import { presentAgain, presented, storedAnswer } from '../../versions/presenter.js';
import { RefundAnswer } from './refund-schema.js';
import { refundFromV21 } from '../../versions/v21-bodies.js';
import type { RefundV21Body } from '../../versions/v21-bodies.js';

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
      200: presented(RefundAnswer),
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
    const currency = request.organisation.currency;
    const outcome = await runUseCase(deps, refundUnits, input, {
      idempotency: idempotencyOf(request),
      // A repeat answers the body this version presented (versions/presenter.ts).
      present: (result) => storedAnswer(request, 'refundInventory', { result, currency }),
    });
    return replyPresented(reply, outcome, (stored) =>
      presentAgain(request, 'refundInventory', stored, (body: RefundV21Body) => ({
        result: refundFromV21(body),
        currency,
      })),
    );
  });
}
