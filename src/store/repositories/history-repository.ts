import type { Insertable, Selectable } from 'kysely';
import { compiledOnce } from '../compiled.js';
import type { CompiledStatement } from '../compiled.js';
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

type TwoEntries = {
  [K in keyof Required<Omit<NewHistoryEntry, 'id'>> as `${K}1` | `${K}2`]: NewHistoryEntry[K];
};

/** Two entries (an assignment provisioned at once: applied, then queued), compiled once. */
const insertTwo = compiledOnce((db, p: TwoEntries) =>
  db.insertInto('esim_history').values([
    {
      iccid: p.iccid1,
      name: p.name1,
      bundle: p.bundle1,
      bundle_state: p.bundle_state1,
      alert_type: p.alert_type1,
      created_at: p.created_at1,
    },
    {
      iccid: p.iccid2,
      name: p.name2,
      bundle: p.bundle2,
      bundle_state: p.bundle_state2,
      alert_type: p.alert_type2,
      created_at: p.created_at2,
    },
  ]),
);

/** Writes one entry, or several in one statement. */
export async function insertHistory(
  db: Executor,
  entries: NewHistoryEntry | readonly NewHistoryEntry[],
): Promise<void> {
  const rows = Array.isArray(entries) ? [...entries] : [entries];
  const [only] = rows;
  const [, second] = rows;
  if (rows.length === 1 && only !== undefined && only.id === undefined) {
    await insertOne.execute(db, only);
  } else if (
    rows.length === 2 &&
    only !== undefined &&
    second !== undefined &&
    only.id === undefined &&
    second.id === undefined
  ) {
    await insertTwo.execute(db, {
      iccid1: only.iccid,
      name1: only.name,
      bundle1: only.bundle,
      bundle_state1: only.bundle_state,
      alert_type1: only.alert_type,
      created_at1: only.created_at,
      iccid2: second.iccid,
      name2: second.name,
      bundle2: second.bundle,
      bundle_state2: second.bundle_state,
      alert_type2: second.alert_type,
      created_at2: second.created_at,
    });
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
    .orderBy('iccid', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

// GET /esims/{iccid}/history: the entries of the eSIM when it is the organisation's, newest first
// through (iccid, id), built once per dialect and page size. No entry: the eSIM is looked up to
// tell "none yet" from "not the organisation's".
function ownedHistoryQuery(db: Executor, organisationId: string, iccid: string, limit: number) {
  return db
    .selectFrom('esim_history as h')
    .selectAll()
    .where('h.iccid', '=', (eb) =>
      eb
        .selectFrom('esims as e')
        .select('e.iccid')
        .where('e.iccid', '=', iccid)
        .where('e.organisation_id', '=', organisationId),
    )
    .orderBy('h.iccid', 'desc')
    .orderBy('h.id', 'desc')
    .limit(limit);
}

const ownedHistoryQueries = new Map<number, CompiledStatement<OwnedIccid, HistoryRow>>();

interface OwnedIccid {
  organisationId: string;
  iccid: string;
}

/**
 * The newest `limit` entries of the organisation's eSIM, newest first; undefined when the eSIM
 * is unknown or another organisation's.
 */
export async function listOwnedHistory(
  db: Executor,
  organisationId: string,
  iccid: string,
  limit: number,
): Promise<HistoryRow[] | undefined> {
  let compiled = ownedHistoryQueries.get(limit);
  if (compiled === undefined) {
    compiled = compiledOnce<OwnedIccid, HistoryRow>((d, p) =>
      ownedHistoryQuery(d, p.organisationId, p.iccid, limit),
    );
    ownedHistoryQueries.set(limit, compiled);
  }
  const { rows } = await compiled.execute(db, { organisationId, iccid });
  if (rows.length > 0) return rows;
  const owned = await db
    .selectFrom('esims')
    .select('iccid')
    .where('iccid', '=', iccid)
    .where('organisation_id', '=', organisationId)
    .executeTakeFirst();
  return owned === undefined ? undefined : [];
}
