import type { Executor } from '../database.js';

// How many rows an organisation has of a kind, kept by the triggers of 022-growth in the
// transaction that writes the rows: reading a total is one row, whatever the organisation's size.
// Names: 'orders:order' (GET /orders), 'orders:apply', 'esims' (row numbers given out to eSIMs,
// deleted ones included since 027-esim-deletions: esim-list-repository.ts), 'ledger' (journal
// entries).

export type CountName = 'orders:order' | 'orders:apply' | 'esims' | 'ledger';

export async function countOf(
  db: Executor,
  organisationId: string,
  name: CountName,
): Promise<number> {
  const row = await db
    .selectFrom('organisation_counts')
    .select('value')
    .where('organisation_id', '=', organisationId)
    .where('name', '=', name)
    .executeTakeFirst();
  return row === undefined ? 0 : Number(row.value);
}

/**
 * The row numbers of a page of a list numbered 1..total: `offset` rows skipped from the start
 * (ascending) or from the end (descending). Reading `seq` between these bounds through an
 * (organisation, seq) index costs the page, not the rows skipped. The bounds come from a total
 * read first, so rows written meanwhile (numbered above it) do not shift the page.
 */
export function pageBounds(
  total: number,
  page: { readonly offset: number; readonly limit: number },
  direction: 'asc' | 'desc',
): { readonly from: number; readonly to: number } {
  if (direction === 'asc')
    return { from: page.offset + 1, to: Math.min(total, page.offset + page.limit) };
  return { from: Math.max(1, total - page.offset - page.limit + 1), to: total - page.offset };
}
