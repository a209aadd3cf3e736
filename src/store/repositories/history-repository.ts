import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../database.js';
import type { EsimHistoryTable } from '../schema.js';

export type HistoryRow = Selectable<EsimHistoryTable>;

export type NewHistoryEntry = Insertable<EsimHistoryTable>;

/** Writes one entry, or several in one statement. */
export async function insertHistory(
  db: Executor,
  entries: NewHistoryEntry | readonly NewHistoryEntry[],
): Promise<void> {
  const rows = Array.isArray(entries) ? [...entries] : [entries];
  if (rows.length > 0) await db.insertInto('esim_history').values(rows).execute();
}

/** Newest first: entries written in one transaction share a timestamp, so order by id too. */
export async function listHistory(
  db: Executor,
  iccid: string,
  limit: number,
): Promise<HistoryRow[]> {
  return db
    .selectFrom('esim_history')
    .selectAll()
    .where('iccid', '=', iccid)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
