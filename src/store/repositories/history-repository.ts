import type { Insertable, Selectable } from 'kysely';
import { compiledOnce } from '../compiled.js';
import type { Executor } from '../database.js';
import type { EsimHistoryTable } from '../schema.js';

export type HistoryRow = Selectable<EsimHistoryTable>;

export type NewHistoryEntry = Insertable<EsimHistoryTable>;

/** One entry (what most writes add), compiled once. */
const insertOne = compiledOnce((db, p: Required<Omit<NewHistoryEntry, 'id'>>) =>
  db.insertInto('esim_history').values({
    iccid: p.iccid,
    name: p.name,
    bundle: p.bundle,
    bundle_state: p.bundle_state,
    alert_type: p.alert_type,
    created_at: p.created_at,
  }),
);

/** Writes one entry, or several in one statement. */
export async function insertHistory(
  db: Executor,
  entries: NewHistoryEntry | readonly NewHistoryEntry[],
): Promise<void> {
  const rows = Array.isArray(entries) ? [...entries] : [entries];
  const [only] = rows;
  if (rows.length === 1 && only !== undefined && only.id === undefined) {
    await insertOne.execute(db, only);
  } else if (rows.length > 0) {
    await db.insertInto('esim_history').values(rows).execute();
  }
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
