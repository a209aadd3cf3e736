import type { AppDeps } from '../../deps.js';
import { badRequest, notFound } from '../../domain/errors.js';
import { revokeAssignment } from '../../domain/lifecycle/revoke.js';
import type { Organisation } from '../../domain/organisation.js';
import type { PlacedOrder } from '../../domain/orders/placement.js';
import { orderingOrganisation, placeOrder } from '../../domain/orders/placement.js';
import type { OrderRequest } from '../../domain/orders/validation.js';
import { findAssignment } from '../../store/repositories/assignment-repository.js';
import { findOwnedEsim } from '../../store/repositories/esim-repository.js';

// The writes of the Orders and eSIMs pages, each the domain use case the API route calls.

export const SMS_MAX_CHARACTERS = 160;

/** Validates (type validate) or places an order, as POST /v2.1/orders does. */
export function buyBundles(
  deps: AppDeps,
  organisation: Organisation,
  request: OrderRequest,
): Promise<PlacedOrder> {
  return placeOrder(deps, orderingOrganisation(organisation), request);
}

/** Revokes one assignment of an eSIM of the organisation (refunded to inventory when unused). */
export async function revokeEsimAssignment(
  deps: AppDeps,
  organisationId: string,
  iccid: string,
  bundleName: string,
  assignmentId: string,
): Promise<{ refundedToInventory: boolean }> {
  const found = await findAssignment(deps.store.db, organisationId, iccid, assignmentId);
  if (found === undefined || found.bundle_name !== bundleName) {
    throw notFound(`assignment ${assignmentId} of bundle ${bundleName} not found on eSIM ${iccid}`);
  }
  const done = await deps.store.db
    .transaction()
    .execute((trx) => revokeAssignment(trx, deps, found));
  return { refundedToInventory: done.refundedToInventory };
}

/** Sends an SMS from the default sender to an eSIM of the organisation. */
export async function sendEsimSms(
  deps: AppDeps,
  organisationId: string,
  iccid: string,
  message: string,
): Promise<void> {
  const esim = await findOwnedEsim(deps.store.db, organisationId, iccid);
  if (esim === undefined) throw notFound(`eSIM ${iccid} not found`);
  const length = [...message].length;
  if (length < 1 || length > SMS_MAX_CHARACTERS) {
    throw badRequest(
      `body field message must be 1 to ${SMS_MAX_CHARACTERS} characters, got ${length}`,
    );
  }
  if (esim.msisdn === null) {
    throw badRequest(`eSIM ${esim.iccid} has no MSISDN, so it cannot receive an SMS`, 'no_msisdn');
  }
  await deps.network.deliverSms({
    iccid: esim.iccid,
    organisationId,
    msisdn: esim.msisdn,
    from: deps.config.smsAllowedSenders[0] ?? 'eSIM',
    message,
  });
}
