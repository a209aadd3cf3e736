import { compiledOnce } from '../compiled.js';
import type { Executor } from '../database.js';
import type { Esim } from '../domain-types.js';

// The columns an issued eSIM is written with (state and its row number come from the defaults
// and the trigger), each from its field of the domain's eSIM.
const insertEsim = compiledOnce((db, p: Esim) =>
  db
    .insertInto('esims')
    .values({
      iccid: p.iccid,
      organisation_id: p.organisationId,
      matching_id: p.matchingId,
      smdp_address: p.smdpAddress,
      profile_status: p.profileStatus,
      pin: p.pin,
      puk: p.puk,
      msisdn: p.msisdn,
      first_installed_at: p.firstInstalledAt,
      order_reference: p.orderReference,
      created_at: p.createdAt,
      customer_ref: p.customerRef,
    })
    .onConflict((oc) => oc.doNothing()),
);

/**
 * Inserts a newly issued eSIM unless its ICCID or matching id is already taken (then false, and
 * the transaction stays usable on PostgreSQL, unlike after a failed insert).
 */
export async function insertIssuedEsim(trx: Executor, esim: Esim): Promise<boolean> {
  // The rows inserted, on both dialects (RETURNING would tell the same at a cost on SQLite).
  const { numAffectedRows } = await insertEsim.execute(trx, esim);
  return Number(numAffectedRows ?? 0) > 0;
}
