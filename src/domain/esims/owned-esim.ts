import type { Executor } from '../../store/database.js';
import { findOwnedEsim } from '../../store/repositories/esim-repository.js';
import type { Esim } from './esim.js';
import { isValidIccid } from './esim-issuer.js';
import { badRequest, notFound } from '../errors/error-codes.js';

// The eSIM a caller names: a malformed ICCID is a 400, one that is unknown or another
// organisation's a 404, with the same message either way.

/** The 400 for a malformed ICCID; the one check every surface uses, so the message is uniform. */
export function checkIccid(iccid: string, field = 'path parameter iccid'): string {
  if (!isValidIccid(iccid)) {
    throw badRequest(
      `${field} "${iccid.slice(0, 40)}" is not an ICCID: expected 19 digits starting 89 with a valid Luhn check digit`,
      'invalid_iccid',
    );
  }
  return iccid;
}

export const esimNotFound = (iccid: string): Error => notFound(`eSIM ${iccid} not found`);

/** The caller's eSIM, or 400 (malformed) / 404 (unknown or another organisation's). */
export async function loadOwnedEsim(
  db: Executor,
  organisationId: string,
  iccid: string,
): Promise<Esim> {
  checkIccid(iccid);
  const esim = await findOwnedEsim(db, organisationId, iccid);
  if (esim === undefined) throw esimNotFound(iccid);
  return esim;
}
