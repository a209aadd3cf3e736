import type { ExpressionBuilder } from 'kysely';
import { compiledOnce } from '../compiled.js';
import type { DialectName, Executor } from '../database.js';
import type { Esim, EsimActivity, EsimDetail } from '../domain-types.js';
import type { Database, EsimRow, EsimStateColumn, ProfileStatus } from '../schema.js';

/** An eSIM row as the domain's eSIM. */
export function esimOf(row: EsimRow): Esim {
  return {
    iccid: row.iccid,
    organisationId: row.organisation_id,
    matchingId: row.matching_id,
    smdpAddress: row.smdp_address,
    profileStatus: row.profile_status,
    pin: row.pin,
    puk: row.puk,
    msisdn: row.msisdn,
    firstInstalledAt: row.first_installed_at,
    orderReference: row.order_reference,
    createdAt: row.created_at,
    customerRef: row.customer_ref,
    state: row.state,
    stateChangedAt: row.state_changed_at,
  };
}

const esimOrUndefined = (row: EsimRow | undefined): Esim | undefined =>
  row === undefined ? undefined : esimOf(row);

/** Every column of an eSIM row but its row number. */
export const ESIM_COLUMNS = [
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
  'state',
  'state_changed_at',
] as const satisfies readonly (keyof EsimRow)[];

/** The scope of a query on `esims as e`. */
type EsimScope = Database & { e: Database['esims'] };

/** An eSIM of the organisation; undefined when it does not exist or belongs to another. */
export async function findOwnedEsim(
  db: Executor,
  organisationId: string,
  iccid: string,
): Promise<Esim | undefined> {
  return esimOrUndefined(
    await db
      .selectFrom('esims')
      .select(ESIM_COLUMNS)
      .where('iccid', '=', iccid)
      .where('organisation_id', '=', organisationId)
      .executeTakeFirst(),
  );
}

export async function findEsim(db: Executor, iccid: string): Promise<Esim | undefined> {
  return esimOrUndefined(
    await db.selectFrom('esims').select(ESIM_COLUMNS).where('iccid', '=', iccid).executeTakeFirst(),
  );
}

export async function listEsimsByIccid(
  db: Executor,
  organisationId: string,
  iccids: readonly string[],
): Promise<Esim[]> {
  if (iccids.length === 0) return [];
  const rows = await db
    .selectFrom('esims')
    .select(ESIM_COLUMNS)
    .where('organisation_id', '=', organisationId)
    .where('iccid', 'in', iccids)
    .execute();
  return rows.map(esimOf);
}

export async function setProfileStatus(
  db: Executor,
  iccid: string,
  status: ProfileStatus,
  firstInstalledAt: string | null,
): Promise<void> {
  await db
    .updateTable('esims')
    .set({ profile_status: status, first_installed_at: firstInstalledAt })
    .where('iccid', '=', iccid)
    .execute();
}

/** Sets the MSISDN of an eSIM that has none; false when it already had one. */
export async function setMsisdn(db: Executor, iccid: string, msisdn: string): Promise<boolean> {
  const result = await db
    .updateTable('esims')
    .set({ msisdn })
    .where('iccid', '=', iccid)
    .where('msisdn', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function msisdnTaken(db: Executor, msisdn: string): Promise<boolean> {
  const row = await db
    .selectFrom('esims')
    .select('iccid')
    .where('msisdn', '=', msisdn)
    .executeTakeFirst();
  return row !== undefined;
}

/** The newest history entry and first assignment of each eSIM, in one statement. */
export async function esimActivity(
  db: Executor,
  iccids: readonly string[],
): Promise<Map<string, EsimActivity>> {
  const result = new Map<string, EsimActivity>();
  if (iccids.length === 0) return result;
  const rows = await db
    .selectFrom('esims as e')
    .select((eb) => ['e.iccid', ...activityColumns(eb)])
    .where('e.iccid', 'in', iccids)
    .execute();
  const byIccid = new Map(rows.map((row) => [row.iccid, row]));
  for (const iccid of iccids) {
    const row = byIccid.get(iccid);
    result.set(iccid, {
      lastAction: row?.last_action ?? '',
      actionDate: row?.action_date ?? '',
      assignedDate: row?.assigned_date ?? '',
    });
  }
  return result;
}

/** Sets the organisation's own reference on its eSIM; false when not the organisation's. */
export async function setCustomerRef(
  db: Executor,
  organisationId: string,
  iccid: string,
  customerRef: string,
): Promise<boolean> {
  const updated = await db
    .updateTable('esims')
    .set({ customer_ref: customerRef })
    .where('iccid', '=', iccid)
    .where('organisation_id', '=', organisationId)
    .returning('iccid')
    .executeTakeFirst();
  return updated !== undefined;
}

const PROFILE_STATUSES: readonly ProfileStatus[] = [
  'Released',
  'Downloaded',
  'Installed',
  'Unavailable',
  'Deactivated',
];

/**
 * How many of the organisation's listed eSIMs (deleted ones are not) are in each profile status
 * (absent: none): counters of 023-list-counters, moved by triggers with every change of status.
 */
export async function countEsimsByProfileStatus(
  db: Executor,
  organisationId: string,
): Promise<Partial<Record<ProfileStatus, number>>> {
  const rows = await db
    .selectFrom('organisation_counts')
    .select(['name', 'value'])
    .where('organisation_id', '=', organisationId)
    .where(
      'name',
      'in',
      PROFILE_STATUSES.map((status) => `esims:${status}`),
    )
    .execute();
  const counts: Partial<Record<ProfileStatus, number>> = {};
  for (const row of rows) {
    const n = Number(row.value);
    if (n > 0) counts[row.name.slice('esims:'.length) as ProfileStatus] = n;
  }
  return counts;
}

/** One eSIM and its activity as one statement reads them. */
interface EsimDetailRow extends EsimRow {
  /** Name and time of the newest history entry; null when none. */
  readonly last_action: string | null;
  readonly action_date: string | null;
  /** When a bundle was first assigned to it; null when never. */
  readonly assigned_date: string | null;
}

/** An eSIM's activity (e, the eSIM): its newest history entry, probed twice on the (iccid, id) index, and its first assignment. */
function activityColumns(eb: ExpressionBuilder<EsimScope, 'e'>) {
  return [
    eb
      .selectFrom('esim_history as h')
      .select('h.name')
      .whereRef('h.iccid', '=', 'e.iccid')
      .orderBy('h.id', 'desc')
      .limit(1)
      .as('last_action'),
    eb
      .selectFrom('esim_history as h')
      .select('h.created_at')
      .whereRef('h.iccid', '=', 'e.iccid')
      .orderBy('h.id', 'desc')
      .limit(1)
      .as('action_date'),
    eb
      .selectFrom('assignments as a')
      .select((a) => a.fn.min<string>('a.created_at').as('first'))
      .whereRef('a.iccid', '=', 'e.iccid')
      .as('assigned_date'),
  ] as const;
}

function esimDetailQuery(db: Executor, organisationId: string, iccid: string) {
  return db
    .selectFrom('esims as e')
    .select((eb) => [...ESIM_COLUMNS.map((c) => `e.${c}` as const), ...activityColumns(eb)])
    .where('e.iccid', '=', iccid)
    .where('e.organisation_id', '=', organisationId);
}

// GET /esims/{iccid} is the read integrations poll most: its SQL is built once per dialect.
const detailQuery = compiledOnce<{ organisationId: string; iccid: string }, EsimDetailRow>(
  (db, p) => esimDetailQuery(db, p.organisationId, p.iccid),
);

/** The organisation's eSIM with its activity, in one statement; undefined when unknown or another's. */
export async function findEsimDetail(
  db: Executor,
  organisationId: string,
  iccid: string,
): Promise<EsimDetail | undefined> {
  const result = await detailQuery.execute(db, { organisationId, iccid });
  const row = result.rows[0];
  if (row === undefined) return undefined;
  return {
    ...esimOf(row),
    lastAction: row.last_action ?? '',
    actionDate: row.action_date ?? '',
    assignedDate: row.assigned_date ?? '',
  };
}

/**
 * The organisation's eSIM, its row locked for the rest of the transaction on PostgreSQL (SQLite
 * runs one writing transaction at a time), so state changes of one eSIM take turns.
 */
export async function lockOwnedEsim(
  db: Executor,
  dialect: DialectName,
  organisationId: string,
  iccid: string,
): Promise<Esim | undefined> {
  let query = db
    .selectFrom('esims')
    .select(ESIM_COLUMNS)
    .where('iccid', '=', iccid)
    .where('organisation_id', '=', organisationId);
  if (dialect === 'postgres') query = query.forUpdate();
  return esimOrUndefined(await query.executeTakeFirst());
}

/**
 * Moves an eSIM from one state to another (and, when given, its profile status with it); false
 * when the eSIM was no longer in `from`.
 */
export async function setEsimState(
  db: Executor,
  change: {
    readonly iccid: string;
    readonly from: EsimStateColumn;
    readonly to: EsimStateColumn;
    readonly at: string;
    readonly profileStatus?: ProfileStatus;
  },
): Promise<boolean> {
  const result = await db
    .updateTable('esims')
    .set({
      state: change.to,
      state_changed_at: change.at,
      ...(change.profileStatus === undefined ? {} : { profile_status: change.profileStatus }),
    })
    .where('iccid', '=', change.iccid)
    .where('state', '=', change.from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
