import type { Selectable } from 'kysely';
import { compiledOnce } from '../compiled.js';
import type { CompiledStatement } from '../compiled.js';
import type { Executor } from '../database.js';
import type { EsimHistoryTable } from '../schema.js';

type HistoryRow = Selectable<EsimHistoryTable>;

/** An entry of an eSIM's history, as the lifecycle writes it. */
export interface HistoryEntry {
  readonly iccid: string;
  /** What happened ("Bundle Applied", "Utilisation Alert", ...). */
  readonly name: string;
  /** The bundle's name; empty for an entry about the eSIM itself. */
  readonly bundle: string;
  /** The bundle's state after it; empty when none. */
  readonly bundleState: string;
  /** The alert it records; empty for a change of state. */
  readonly alertType: string;
  readonly at: string;
}

function entryOf(row: HistoryRow): HistoryEntry {
  return {
    iccid: row.iccid,
    name: row.name,
    bundle: row.bundle,
    bundleState: row.bundle_state,
    alertType: row.alert_type,
    at: row.created_at,
  };
}

/** One entry (what most writes add), compiled once. */
const insertOne = compiledOnce((db, p: HistoryEntry) =>
  db.insertInto('esim_history').values({
    iccid: p.iccid,
    name: p.name,
    bundle: p.bundle,
    bundle_state: p.bundleState,
    alert_type: p.alertType,
    created_at: p.at,
  }),
);

type TwoEntries = { [K in keyof HistoryEntry as `${K}1` | `${K}2`]: HistoryEntry[K] };

/** Two entries (an assignment provisioned at once: applied, then queued), compiled once. */
const insertTwo = compiledOnce((db, p: TwoEntries) =>
  db.insertInto('esim_history').values([
    {
      iccid: p.iccid1,
      name: p.name1,
      bundle: p.bundle1,
      bundle_state: p.bundleState1,
      alert_type: p.alertType1,
      created_at: p.at1,
    },
    {
      iccid: p.iccid2,
      name: p.name2,
      bundle: p.bundle2,
      bundle_state: p.bundleState2,
      alert_type: p.alertType2,
      created_at: p.at2,
    },
  ]),
);

/** Writes one entry, or several in one statement. */
export async function insertHistory(
  db: Executor,
  entries: HistoryEntry | readonly HistoryEntry[],
): Promise<void> {
  const list: readonly HistoryEntry[] = Array.isArray(entries)
    ? entries
    : [entries as HistoryEntry];
  const [only, second] = list;
  if (list.length === 1 && only !== undefined) {
    await insertOne.execute(db, only);
  } else if (list.length === 2 && only !== undefined && second !== undefined) {
    await insertTwo.execute(db, {
      iccid1: only.iccid,
      name1: only.name,
      bundle1: only.bundle,
      bundleState1: only.bundleState,
      alertType1: only.alertType,
      at1: only.at,
      iccid2: second.iccid,
      name2: second.name,
      bundle2: second.bundle,
      bundleState2: second.bundleState,
      alertType2: second.alertType,
      at2: second.at,
    });
  } else if (list.length > 0) {
    await db
      .insertInto('esim_history')
      .values(
        list.map((e) => ({
          iccid: e.iccid,
          name: e.name,
          bundle: e.bundle,
          bundle_state: e.bundleState,
          alert_type: e.alertType,
          created_at: e.at,
        })),
      )
      .execute();
  }
}

/** Newest first: entries written in one transaction share a timestamp, so order by id too. */
export async function listHistory(
  db: Executor,
  iccid: string,
  limit: number,
): Promise<HistoryEntry[]> {
  const rows = await db
    .selectFrom('esim_history')
    .selectAll()
    .where('iccid', '=', iccid)
    .orderBy('iccid', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(entryOf);
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
): Promise<HistoryEntry[] | undefined> {
  let compiled = ownedHistoryQueries.get(limit);
  if (compiled === undefined) {
    compiled = compiledOnce<OwnedIccid, HistoryRow>((d, p) =>
      ownedHistoryQuery(d, p.organisationId, p.iccid, limit),
    );
    ownedHistoryQueries.set(limit, compiled);
  }
  const { rows } = await compiled.execute(db, { organisationId, iccid });
  if (rows.length > 0) return rows.map(entryOf);
  const owned = await db
    .selectFrom('esims')
    .select('iccid')
    .where('iccid', '=', iccid)
    .where('organisation_id', '=', organisationId)
    .executeTakeFirst();
  return owned === undefined ? undefined : [];
}
