import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { apiActor } from '../../../domain/audit/audit-log.js';
import { topUpBalance } from '../../../domain/money/top-up-balance.js';
import type { Api } from '../../api.js';
import {
  IdempotencyHeaders,
  idempotencyConflict,
  idempotencyOf,
  replyPresented,
} from '../../idempotency.js';
import { ErrorRef, headerOnlySecurity, standardErrors } from '../../schemas/common.js';
import { present, presented } from '../../versions/presenter.js';

export const TopUpAnswer = Type.Object(
  {
    amount: Type.Integer({ description: 'Amount charged and credited, in minor units.' }),
    balance: Type.Integer({ description: 'Balance after the top-up, in minor units.' }),
    ref: Type.Integer({ description: 'Unique reference of this top-up.' }),
  },
  { title: 'TopUpResult' },
);

export function registerTopUp(app: Api, deps: AppDeps): void {
  const { topUpMin, topUpMax } = deps.config;
  const schema = {
    tags: ['Organisation'],
    operationId: 'topUpBalance',
    summary: 'Top up the prepaid balance by charging the saved card',
    description:
      'Charges the card saved in the portal (the first payment is made there) and credits the ' +
      'balance. Declined: 400 with the reason. Processor unreachable or not answering in time: ' +
      '503 with Retry-After and the balance unchanged; a charge whose answer was lost is ' +
      'confirmed with the processor afterwards and credited at most once.',
    security: headerOnlySecurity,
    headers: IdempotencyHeaders,
    querystring: Type.Object({
      amount: Type.String({
        description: `Amount to charge, a string carrying a whole number of minor units of the organisation currency (cents for USD), ${topUpMin} to ${topUpMax} (TOPUP_MIN, TOPUP_MAX).`,
      }),
    }),
    response: {
      200: presented(TopUpAnswer),
      400: {
        ...ErrorRef,
        description:
          'Bad amount (code invalid_amount), no saved card (no_card), or the card was declined (card_declined, insufficient_funds).',
      },
      403: standardErrors[403],
      409: idempotencyConflict,
      500: standardErrors[500],
      503: {
        ...ErrorRef,
        description:
          'The payment processor is unavailable or did not answer in time; see Retry-After. The balance is unchanged.',
      },
    },
  };
  app.post('/organisation/balance', { schema }, async (request, reply) => {
    const outcome = await topUpBalance(deps, {
      org: { id: request.organisation.id, currency: request.organisation.currency },
      rawAmount: request.query.amount,
      actor: apiActor(request.organisation.id, request.ip),
      idempotency: idempotencyOf(request),
      onAuditFailure: (error) =>
        request.log.warn({ err: error }, 'could not write the audit row of a top-up'),
    });
    // The top-up stores its result; each version presents it, a repeat's as the first's.
    const currency = request.organisation.currency;
    return replyPresented(reply, outcome, (result) =>
      present(request, 'topUpBalance', { result, currency }),
    );
  });
}
