import type { Executor } from '../database.js';
import type { EsimRow } from '../schema.js';

// The portal's eSIM list: a page of the organisation's eSIMs, newest first, optionally only those
// whose ICCID contains some digits. The organisation's rows are found through the esims_org index;
// a search scans only them (10,000 rows take a few milliseconds on either database).

export interface EsimSearch {
  /** Digits the ICCID must contain; undefined lists every eSIM. */
  readonly iccidContains?: string;
  readonly offset: number;
  readonly limit: number;
}

export interface EsimSearchPage {
  readonly rows: EsimRow[];
  readonly total: number;
}

export async function searchEsims(
  db: Executor,
  organisationId: string,
  search: EsimSearch,
): Promise<EsimSearchPage> {
  let base = db.selectFrom('esims').where('organisation_id', '=', organisationId);
  // The caller passes digits only, so the pattern holds no LIKE wildcard of its own.
  if (search.iccidContains !== undefined) {
    base = base.where('iccid', 'like', `%${search.iccidContains}%`);
  }
  const [rows, count] = await Promise.all([
    base
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('iccid', 'desc')
      .offset(search.offset)
      .limit(search.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}
