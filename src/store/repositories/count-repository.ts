import { PostgresAdapter, sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import type { Db, DialectName, Executor } from '../database.js';

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
 * SQLite: the row number an insert gives its row itself (036-numbered-inserts), the next of the
 * organisation's counter `name`, read in the inserting statement; its trigger then only counts
 * the row. Undefined on PostgreSQL, whose trigger numbers every row before it is written.
 */
export function nextNumber(
  db: Executor,
  organisationId: string,
  name: CountName,
): RawBuilder<number> | undefined {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return undefined;
  return sql<number>`coalesce((select value from organisation_counts
    where organisation_id = ${organisationId} and name = ${name}), 0) + 1`;
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

/** Namespace of the fold's advisory lock (pg_try_advisory_xact_lock(namespace, 0)). */
export const FOLD_LOCK = 0x65_53_43_44;

/**
 * PostgreSQL (035-count-deltas): moves the counter changes written since the last fold into
 * organisation_counts, in one statement that deletes the deltas it reads; deltas written
 * meanwhile wait for the next fold. One fold at a time across instances: while another runs,
 * this one does nothing. How many delta rows were folded (0 on SQLite, which keeps none).
 */
export async function foldCountDeltas(db: Db, dialect: DialectName): Promise<number> {
  if (dialect !== 'postgres') return 0;
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ locked: boolean }>`
      select pg_try_advisory_xact_lock(${FOLD_LOCK}, 0) as locked`.execute(trx);
    if (rows[0]?.locked !== true) return 0;
    const folded = await sql<{ n: number | string }>`
      with moved as (
        delete from count_deltas returning organisation_id, name, value
      ), summed as (
        select organisation_id, name, sum(value) as value, count(*) as n from moved
        group by organisation_id, name
      ), applied as (
        insert into organisation_counts as c (organisation_id, name, value)
        select organisation_id, name, value from summed order by organisation_id, name
        on conflict (organisation_id, name) do update set value = c.value + excluded.value
      )
      select coalesce(sum(n), 0) as n from summed`.execute(trx);
    return Number(folded.rows[0]?.n ?? 0);
  });
}
