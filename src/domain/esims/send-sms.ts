import type { Db } from '../../store/database.js';
import type { NetworkAdapter } from '../network/network-adapter.js';
import { badRequest } from '../errors/error-codes.js';
import { loadOwnedEsim } from './owned-esim.js';
import { refuseDeactivated, refuseSuspended } from './esim-state.js';

// Sending an SMS to an eSIM (POST /esims/{iccid}/sms): the checks, then the outbound command to
// the network. The message leaves the service through the adapter, not in a transaction of
// ours, so the runner runs it as a process (`runProcess`) and stores its answer once it is sent.

export const SMS_MAX_CHARACTERS = 160;

export interface SendSmsDeps {
  readonly store: { readonly db: Db };
  readonly config: { readonly smsAllowedSenders: readonly string[] };
  readonly network: Pick<NetworkAdapter, 'deliverSms'>;
}

export interface SendSmsInput {
  readonly organisationId: string;
  readonly iccid: string;
  readonly message: string;
  /** The sender shown on the device; one of SMS_ALLOWED_SENDERS. */
  readonly from: string;
}

export async function sendSms(deps: SendSmsDeps, input: SendSmsInput): Promise<void> {
  const esim = await loadOwnedEsim(deps.store.db, input.organisationId, input.iccid);
  refuseDeactivated(esim, 'cannot receive SMS');
  refuseSuspended(esim, 'cannot receive SMS');
  const { message, from } = input;
  // Code points, so an emoji or a CJK character counts as one character as the spec says.
  const length = [...message].length;
  if (length < 1 || length > SMS_MAX_CHARACTERS) {
    throw badRequest(
      `body field message must be 1 to ${SMS_MAX_CHARACTERS} characters, got ${length}`,
    );
  }
  const senders = deps.config.smsAllowedSenders;
  if (!senders.includes(from)) {
    throw badRequest(`body field from must be one of ${senders.join(', ')}, got "${from}"`);
  }
  if (esim.msisdn === null) {
    throw badRequest(`eSIM ${esim.iccid} has no MSISDN, so it cannot receive an SMS`, 'no_msisdn');
  }
  await deps.network.deliverSms({
    iccid: esim.iccid,
    organisationId: esim.organisationId,
    msisdn: esim.msisdn,
    from,
    message,
  });
}
