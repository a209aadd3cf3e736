import type { Executor } from '../database.js';
import type { Esim } from '../domain-types.js';
import { esimOf } from './esim-repository.js';

// The portal's ICCID search: the organisation's eSIMs whose ICCID starts with some digits, in
// ICCID order, a page at a time by key. The prefix is a range of `esims_org_iccid`
// (organisation_id, iccid), so a page costs what it holds, however many eSIMs the organisation
// has and however many match. Deleted eSIMs (no row number) are skipped.

export interface EsimSearch {
  /** Digits the ICCID starts with, at least one. */
  readonly prefix: string;
  /** The page after this ICCID (a Next link), or before it (a Previous link). */
  readonly after?: string;
  readonly before?: string;
  readonly limit: number;
}

export interface EsimSearchPage {
  readonly esims: Esim[];
  /** Whether there are matches before the page's first row and after its last. */
  readonly earlier: boolean;
  readonly later: boolean;
}

/**
 * The first string after every string starting with `prefix` (digits): its last digit below 9
 * raised by one, dropping trailing 9s; undefined when the prefix is only 9s (no upper bound).
 * Digit strings compare the same under any collation, so the range holds on both databases.
 */
export function prefixEnd(prefix: string): string | undefined {
  const trimmed = prefix.replace(/9+$/, '');
  if (trimmed === '') return undefined;
  const last = Number(trimmed.at(-1));
  return `${trimmed.slice(0, -1)}${last + 1}`;
}

export async function searchEsims(
  db: Executor,
  organisationId: string,
  search: EsimSearch,
): Promise<EsimSearchPage> {
  // One bound a side: SQLite starts an index range at one lower bound and ends it at one upper
  // bound, checking any other bound on the same column row by row. A key inside the prefix's
  // range therefore replaces the range's bound on its side (a key is always past the prefix's
  // start: it was read from a page of the same search), so a next page starts at its key, not at
  // the prefix's first ICCID.
  const end = prefixEnd(search.prefix);
  const base = db
    .selectFrom('esims')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .where('seq', 'is not', null);
  if (search.before !== undefined) {
    const upper = end !== undefined && end < search.before ? end : search.before;
    const rows = await base
      .where('iccid', '>=', search.prefix)
      .where('iccid', '<', upper)
      .orderBy('organisation_id', 'desc')
      .orderBy('iccid', 'desc')
      .limit(search.limit + 1)
      .execute();
    const earlier = rows.length > search.limit;
    const page = rows.slice(0, search.limit).map(esimOf).reverse();
    return { esims: page, earlier, later: true };
  }
  const from =
    search.after !== undefined && search.after >= search.prefix
      ? base.where('iccid', '>', search.after)
      : base.where('iccid', '>=', search.prefix);
  const rows = await (end === undefined ? from : from.where('iccid', '<', end))
    .orderBy('organisation_id')
    .orderBy('iccid')
    .limit(search.limit + 1)
    .execute();
  return {
    esims: rows.slice(0, search.limit).map(esimOf),
    earlier: search.after !== undefined,
    later: rows.length > search.limit,
  };
}
