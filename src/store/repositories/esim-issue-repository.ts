import { columnsOf, compiledOnce } from '../compiled.js';
import type { Executor } from '../database.js';
import type { EsimRow } from '../schema.js';

const ESIM_COLUMNS = [
  'iccid',
  'organisation_id',
  'matching_id',
  'smdp_address',
  'profile_status',
  'pin',
  'puk',
  'msisdn',
  'first_installed_at',
  'order_reference',
  'created_at',
  'customer_ref',
] as const satisfies readonly (keyof EsimRow)[];

const insertEsim = compiledOnce((db, p: EsimRow) =>
  db
    .insertInto('esims')
    .values(columnsOf(p, ESIM_COLUMNS))
    .onConflict((oc) => oc.doNothing()),
);

/**
 * Inserts a newly issued eSIM unless its ICCID or matching id is already taken (then false, and
 * the transaction stays usable on PostgreSQL, unlike after a failed insert).
 */
export async function insertIssuedEsim(trx: Executor, row: EsimRow): Promise<boolean> {
  // The rows inserted, on both dialects (RETURNING would tell the same at a cost on SQLite).
  const { numAffectedRows } = await insertEsim.execute(trx, row);
  return Number(numAffectedRows ?? 0) > 0;
}
