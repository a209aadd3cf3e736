import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { badRequest } from '../../../domain/errors.js';
import type { Api } from '../../api.js';
import { IdempotencyHeaders, idempotencyConflict, withIdempotency } from '../../idempotency.js';
import { headerOnlySecurity, standardErrors } from '../../schemas/common.js';
import { IccidParams, loadOwnedEsim } from './esim-view.js';

export const SMS_MAX_CHARACTERS = 160;

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
    200: Type.Object({
      message: Type.String({ description: 'Outcome, "Message sent".' }),
    }),
    400: standardErrors[400],
    403: standardErrors[403],
    404: standardErrors[404],
    409: idempotencyConflict,
    500: standardErrors[500],
  },
};

export function registerSendSms(app: Api, deps: AppDeps): void {
  app.post('/esims/:iccid/sms', { schema }, (request, reply) =>
    withIdempotency(deps, request, reply, async () => {
      const esim = await loadOwnedEsim(deps, request.organisation.id, request.params.iccid);
      const { message } = request.body;
      const from = request.body.from ?? 'eSIM';
      // Code points, so an emoji or a CJK character counts as one character as the spec says.
      const length = [...message].length;
      if (length < 1 || length > SMS_MAX_CHARACTERS) {
        throw badRequest(
          `body field message must be 1 to ${SMS_MAX_CHARACTERS} characters, got ${length}`,
        );
      }
      if (!deps.config.smsAllowedSenders.includes(from)) {
        throw badRequest(
          `body field from must be one of ${deps.config.smsAllowedSenders.join(', ')}, got "${from}"`,
        );
      }
      if (esim.msisdn === null) {
        throw badRequest(
          `eSIM ${esim.iccid} has no MSISDN, so it cannot receive an SMS`,
          'no_msisdn',
        );
      }
      await deps.network.deliverSms({
        iccid: esim.iccid,
        organisationId: esim.organisation_id,
        msisdn: esim.msisdn,
        from,
        message,
      });
      return { message: 'Message sent' };
    }),
  );
}
