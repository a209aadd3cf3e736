import { sql } from 'kysely';
import type { Executor } from '../database.js';

/** The cheapest gigabyte of one group's fixed bundles in one base country. */
export interface CheapestGigabyte {
  readonly iso: string;
  readonly group: string;
  /** Minor units per 1000 MB, not rounded. */
  readonly perGigabyte: number;
}

/**
 * For each base country and group (of `groups`), the lowest price of 1000 MB among the group's
 * bundles with a data amount (unlimited ones have none). The catalogue's rows, not an
 * organisation's: it costs what the catalogue holds, whoever asks.
 */
export async function cheapestGigabytes(
  db: Executor,
  groups: readonly string[],
): Promise<CheapestGigabyte[]> {
  if (groups.length === 0) return [];
  const rows = await db
    .selectFrom('bundles as b')
    .innerJoin('bundle_groups as g', 'g.bundle_name', 'b.name')
    .innerJoin('bundle_countries as c', 'c.bundle_name', 'b.name')
    .where('g.group_name', 'in', groups)
    .where('b.unlimited', '=', 0)
    .where('b.data_amount', '>', 0)
    .select([
      'c.iso as iso',
      'g.group_name as group',
      sql<string | number>`min(b.price * 1000.0 / b.data_amount)`.as('per_gigabyte'),
    ])
    .groupBy(['c.iso', 'g.group_name'])
    .execute();
  return rows.map((r) => ({ iso: r.iso, group: r.group, perGigabyte: Number(r.per_gigabyte) }));
}
