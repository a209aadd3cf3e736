import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { runProcess } from '../../../domain/runner/use-case-runner.js';
import { SMS_MAX_CHARACTERS, sendSms } from '../../../domain/esims/send-sms.js';
import type { Api } from '../../api.js';
import {
  IdempotencyHeaders,
  idempotencyConflict,
  idempotencyOf,
  replyPresented,
} from '../../idempotency.js';
import { headerOnlySecurity, standardErrors } from '../../schemas/common.js';
import { presentAgain, presented, storedAnswer } from '../../versions/presenter.js';
import { IccidParams } from './esim-view.js';

/** v2.1's answer (a version's presenter gives its own, versions/presenters/sms.ts). */
export const SmsAnswer = Type.Object({
  message: Type.String({ description: 'Outcome, "Message sent".' }),
});

const schema = {
  tags: ['eSIMs'],
  operationId: 'sendSms',
  summary: 'Send an SMS to an eSIM',
  description:
    'Delivers a text message to the eSIM phone number. The eSIM must have an MSISDN (400 otherwise). ' +
    'In simulator mode delivered messages appear in GET /_sim/sms.',
  security: headerOnlySecurity,
  params: IccidParams,
  headers: IdempotencyHeaders,
  body: Type.Object(
    {
      message: Type.String({
        description: `The text, 1 to ${SMS_MAX_CHARACTERS} characters (Unicode characters, not bytes), UTF-8.`,
      }),
      from: Type.Optional(
        Type.String({
          default: 'eSIM',
          description:
            'Sender shown on the device. Default eSIM, the only value accepted unless SMS_ALLOWED_SENDERS says otherwise.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  response: {
    200: presented(SmsAnswer),
    400: standardErrors[400],
    403: standardErrors[403],
    404: standardErrors[404],
    409: idempotencyConflict,
    500: standardErrors[500],
  },
};

export function registerSendSms(app: Api, deps: AppDeps): void {
  app.post('/esims/:iccid/sms', { schema }, async (request, reply) => {
    const input = {
      organisationId: request.organisation.id,
      iccid: request.params.iccid,
      message: request.body.message,
      from: request.body.from ?? 'eSIM',
    };
    const outcome = await runProcess(deps, sendSms, input, {
      idempotency: idempotencyOf(request),
      // A repeat answers the body this version presented (versions/presenter.ts).
      present: () => storedAnswer(request, 'sendSms', { iccid: input.iccid }),
    });
    return replyPresented(reply, outcome, (stored) =>
      presentAgain(request, 'sendSms', stored, () => ({ iccid: input.iccid })),
    );
  });
}
