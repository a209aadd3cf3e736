import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import type { FastifyRequest } from 'fastify';
import { apiActor, audit } from '../../../domain/audit.js';
import { DomainError } from '../../../domain/errors.js';
import type { TopUpResult as TopUpOutcome } from '../../../domain/top-up.js';
import { settleOnRetry, topUp } from '../../../domain/top-up.js';
import type { Api } from '../../api.js';
import { IdempotencyHeaders, idempotencyConflict, withIdempotency } from '../../idempotency.js';
import { ErrorRef, headerOnlySecurity, standardErrors } from '../../schemas/common.js';

const TopUpResult = Type.Object(
  {
    amount: Type.Integer({ description: 'Amount charged and credited, in minor units.' }),
    balance: Type.Integer({ description: 'Balance after the top-up, in minor units.' }),
    ref: Type.Integer({ description: 'Unique reference of this top-up.' }),
  },
  { title: 'TopUpResult' },
);

/**
 * Writes the top-up's audit row once its outcome is known. The top-up has its own transactions
 * (the charge happens between them), so the row follows them; a failure to write it is logged
 * and never turns a completed top-up into an error.
 */
async function audited(
  deps: AppDeps,
  request: Pick<FastifyRequest, 'organisation' | 'ip' | 'log'> & { query: { amount: string } },
  pending: Promise<TopUpOutcome>,
): Promise<TopUpOutcome> {
  const who = apiActor(request.organisation.id, request.ip);
  const record = async (action: 'topup.succeeded' | 'topup.failed', details: object) => {
    try {
      await audit(deps.store.db, who, {
        action,
        organisationId: request.organisation.id,
        at: deps.clock.now(),
        details: { ...details },
      });
    } catch (error) {
      request.log.warn({ err: error }, 'could not write the audit row of a top-up');
    }
  };
  try {
    const result = await pending;
    await record('topup.succeeded', result);
    return result;
  } catch (error) {
    const reason = error instanceof DomainError ? error.code : 'internal_error';
    await record('topup.failed', { amount: request.query.amount, reason });
    throw error;
  }
}

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
      200: TopUpResult,
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
    const run = () =>
      withIdempotency(
        deps,
        request,
        reply,
        (idem) =>
          audited(
            deps,
            request,
            topUp(
              deps,
              { id: request.organisation.id, currency: request.organisation.currency },
              request.query.amount,
              {
                idempotencyKey: idem.key,
                handOver: (owner, leaseSeconds) => idem.handOver(owner, leaseSeconds),
              },
            ),
          ),
        { leaseSeconds: Math.ceil(deps.config.paymentTimeoutMs / 1000) + 60 },
      );
    try {
      return await run();
    } catch (error) {
      // A retry while the first request's charge is in doubt (its answer lost, or its process
      // gone): if the processor has decided meanwhile, settle now and answer with the outcome.
      const key = request.headers['idempotency-key'];
      if (
        error instanceof DomainError &&
        error.code === 'idempotency_in_progress' &&
        typeof key === 'string' &&
        (await settleOnRetry(deps, request.organisation.id, key))
      ) {
        return run();
      }
      throw error;
    }
  });
}
