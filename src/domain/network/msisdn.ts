import type { Db } from '../../store/database.js';
import { findEsim, msisdnTaken, setMsisdn } from '../../store/repositories/esim-repository.js';
import { findNetwork } from '../../store/repositories/network-repository.js';
import { countryByIso } from '../catalogue/countries.js';
import { badRequest, conflict, notFound } from '../errors/error-codes.js';

// Numbering an eSIM: the network allocates the number (an outbound command), the service checks
// it is free and records it on the eSIM, so every network integration numbers eSIMs the same way.

/** The outbound command this use case needs; NetworkAdapter provides it. */
export interface MsisdnAllocator {
  allocateMsisdn(input: {
    readonly iccid: string;
    readonly country: string;
    readonly callingCode: string;
  }): Promise<string>;
}

export interface MsisdnDeps {
  readonly store: { readonly db: Db };
  readonly network: MsisdnAllocator;
}

const MAX_ATTEMPTS = 20;

/**
 * Gives the eSIM a phone number with the calling code of `countryIso`, else of the country it is
 * attached in, else GB. An eSIM that already has a number keeps it.
 */
export async function numberEsim(
  deps: MsisdnDeps,
  iccid: string,
  countryIso: string | undefined,
): Promise<string> {
  const db = deps.store.db;
  const requireEsim = async () => {
    const esim = await findEsim(db, iccid);
    if (esim === undefined) throw notFound(`eSIM ${iccid} not found`);
    return esim;
  };
  const esim = await requireEsim();
  if (esim.msisdn !== null) return esim.msisdn;
  const home = countryIso ?? (await findNetwork(db, iccid))?.country ?? 'GB';
  const country = countryByIso(home);
  if (country === undefined || country.callingCode === '') {
    throw badRequest(`country "${home}" is not an ISO 3166-1 alpha-2 code with a calling code`);
  }
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const msisdn = await deps.network.allocateMsisdn({
      iccid,
      country: country.iso,
      callingCode: country.callingCode,
    });
    if (await msisdnTaken(db, msisdn)) continue;
    // setMsisdn writes only while the eSIM has no number, so a concurrent numbering wins once.
    if (await setMsisdn(db, iccid, msisdn)) return msisdn;
    return (await requireEsim()).msisdn ?? msisdn;
  }
  throw conflict('could not find a free MSISDN; try again');
}
