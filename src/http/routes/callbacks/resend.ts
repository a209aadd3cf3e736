import { applyResend } from '../../../domain/callbacks/deliveries.js';
import { runUseCase } from '../../../domain/runner/use-case-runner.js';
import type { AppDeps } from '../../../deps.js';
import type { Api } from '../../api.js';
import {
  IdempotencyHeaders,
  idempotencyConflict,
  idempotencyOf,
  replyWith,
} from '../../idempotency.js';
import { ErrorRef, headerOnlySecurity, standardErrors } from '../../schemas/common.js';
import { DeliverySummarySchema, IdParams, TAG } from './delivery-schema.js';

const schema = {
  tags: [TAG],
  operationId: 'resendCallback',
  summary: 'Resend a usage callback',
  description:
    'Queues a failed, delivered or undeliverable callback for delivery again, to the current ' +
    'callback URL and version, with a fresh retry schedule; past attempts are kept. Answers 202 ' +
    'with the queued delivery. Accepts an Idempotency-Key header.',
  'x-extension': true,
  security: headerOnlySecurity,
  params: IdParams,
  headers: IdempotencyHeaders,
  response: {
    202: DeliverySummarySchema,
    400: {
      ...standardErrors[400],
      description: 'No callback URL is configured for the organisation.',
    },
    403: standardErrors[403],
    404: standardErrors[404],
    409: {
      ...ErrorRef,
      description: `The callback is already queued or being delivered. ${idempotencyConflict.description}`,
    },
    500: standardErrors[500],
  },
};

export function registerResendCallback(app: Api, deps: AppDeps): void {
  app.post('/callbacks/:id/resend', { schema }, async (request, reply) => {
    const input = { organisationId: request.organisation.id, id: request.params.id };
    // The Idempotency-Key record commits with the resend; a repeat gets the stored 202 back.
    const outcome = await runUseCase(deps, applyResend, input, {
      idempotency: idempotencyOf(request),
      present: (queued) => queued,
    });
    reply.code(202);
    return replyWith(reply, outcome);
  });
}
