import type { Executor } from '../database.js';
import type { EsimRow } from '../schema.js';

/**
 * Inserts a newly issued eSIM unless its ICCID or matching id is already taken (then false, and
 * the transaction stays usable on PostgreSQL, unlike after a failed insert).
 */
export async function insertIssuedEsim(trx: Executor, row: EsimRow): Promise<boolean> {
  const inserted = await trx
    .insertInto('esims')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returning('iccid')
    .executeTakeFirst();
  return inserted !== undefined;
}
