import type { Selectable } from 'kysely';
import type { DialectName, Executor } from '../database.js';
import type { Assignment, EsimLocation } from '../domain-types.js';
import type { EsimNetworkTable, EsimStateColumn } from '../schema.js';
import { assignmentOf } from './assignment-repository.js';
import { compiledOnce } from '../compiled.js';

// Where each eSIM is attached (esim_network), taken and returned as the domain's EsimLocation.

type NetworkRow = Selectable<EsimNetworkTable>;

function locationOf(row: NetworkRow): EsimLocation {
  return {
    iccid: row.iccid,
    mcc: row.mcc,
    mnc: row.mnc,
    networkName: row.network_name,
    country: row.country,
    attached: Number(row.attached) === 1,
    lastSeen: row.last_seen,
    firstUsedAt: row.first_used_at,
  };
}

export async function findNetwork(db: Executor, iccid: string): Promise<EsimLocation | undefined> {
  const row = await db
    .selectFrom('esim_network')
    .selectAll()
    .where('iccid', '=', iccid)
    .executeTakeFirst();
  return row === undefined ? undefined : locationOf(row);
}

// GET /esims/{iccid}/location: ownership and the network row in one statement, built once.
const ownedNetworkQuery = compiledOnce((db, p: { organisationId: string; iccid: string }) =>
  db
    .selectFrom('esims as e')
    .leftJoin('esim_network as n', 'n.iccid', 'e.iccid')
    .select([
      'n.iccid',
      'n.mcc',
      'n.mnc',
      'n.network_name',
      'n.country',
      'n.attached',
      'n.last_seen',
      'n.first_used_at',
    ])
    .where('e.iccid', '=', p.iccid)
    .where('e.organisation_id', '=', p.organisationId),
);

/**
 * Where the organisation's eSIM is attached: undefined when the eSIM is unknown or another
 * organisation's, `{ network: undefined }` when it has not been seen on a network yet.
 */
export async function findOwnedNetwork(
  db: Executor,
  organisationId: string,
  iccid: string,
): Promise<{ network: EsimLocation | undefined } | undefined> {
  const [row] = (await ownedNetworkQuery.execute(db, { organisationId, iccid })).rows;
  if (row === undefined) return undefined;
  const { iccid: attachedIccid, mcc, mnc, network_name, country, attached, last_seen } = row;
  if (
    attachedIccid === null ||
    mcc === null ||
    mnc === null ||
    network_name === null ||
    country === null ||
    attached === null ||
    last_seen === null
  ) {
    return { network: undefined };
  }
  return {
    network: locationOf({
      iccid: attachedIccid,
      mcc,
      mnc,
      network_name,
      country,
      attached,
      last_seen,
      first_used_at: row.first_used_at,
    }),
  };
}

/** Where the eSIM is attached now (one row per eSIM, replaced on every attach). */
export async function upsertNetwork(db: Executor, location: EsimLocation): Promise<void> {
  const row: NetworkRow = {
    iccid: location.iccid,
    mcc: location.mcc,
    mnc: location.mnc,
    network_name: location.networkName,
    country: location.country,
    attached: location.attached ? 1 : 0,
    last_seen: location.lastSeen,
    first_used_at: location.firstUsedAt,
  };
  await db
    .insertInto('esim_network')
    .values(row)
    .onConflict((oc) =>
      oc.column('iccid').doUpdateSet({
        mcc: row.mcc,
        mnc: row.mnc,
        network_name: row.network_name,
        country: row.country,
        attached: row.attached,
        last_seen: row.last_seen,
        first_used_at: row.first_used_at,
      }),
    )
    .execute();
}

/** Moves the times the eSIM was last seen and, when given, first used data where it is attached. */
export async function touchNetwork(
  db: Executor,
  iccid: string,
  changes: Pick<EsimLocation, 'lastSeen'> & Partial<Pick<EsimLocation, 'firstUsedAt'>>,
): Promise<void> {
  await db
    .updateTable('esim_network')
    .set({
      last_seen: changes.lastSeen,
      ...(changes.firstUsedAt === undefined ? {} : { first_used_at: changes.firstUsedAt }),
    })
    .where('iccid', '=', iccid)
    .execute();
}

export interface UsageView {
  readonly esim: {
    readonly iccid: string;
    readonly organisationId: string;
    readonly profileStatus: string;
    /** active, suspended or deactivated (domain/esim-state.ts). */
    readonly state: EsimStateColumn;
  };
  /** Where the eSIM is attached; undefined when it has never attached. */
  readonly network: EsimLocation | undefined;
  /** Processing, Queued and Active assignments in queue order, with their bundle's terms. */
  readonly live: LiveAssignment[];
}

export interface LiveAssignment {
  readonly assignment: Assignment;
  readonly description: string;
  /** Base and roaming countries (ISO2) where the bundle can be used. */
  readonly coverage: ReadonlySet<string>;
}

function parseList(json: string | null | undefined): string[] {
  if (json === null || json === undefined || json === '') return [];
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function usageViewQuery(db: Executor, iccid: string) {
  return db
    .selectFrom('esims as e')
    .leftJoin('esim_network as n', 'n.iccid', 'e.iccid')
    .leftJoin('assignments as a', (join) =>
      join.onRef('a.iccid', '=', 'e.iccid').on('a.state', 'in', ['Processing', 'Queued', 'Active']),
    )
    .leftJoin('bundles as b', 'b.name', 'a.bundle_name')
    .select([
      'e.iccid as e_iccid',
      'e.organisation_id as e_org',
      'e.profile_status as e_status',
      'e.state as e_state',
      'n.mcc as n_mcc',
      'n.mnc as n_mnc',
      'n.network_name as n_name',
      'n.country as n_country',
      'n.attached as n_attached',
      'n.last_seen as n_last_seen',
      'n.first_used_at as n_first_used',
      'a.id',
      'a.reference',
      'a.iccid',
      'a.organisation_id',
      'a.bundle_name',
      'a.batch_id',
      'a.state',
      'a.initial_bytes',
      'a.remaining_bytes',
      'a.used_bytes',
      'a.unlimited',
      'a.duration_days',
      'a.queue_position',
      'a.processing_due_at',
      'a.valid_until',
      'a.start_time',
      'a.end_time',
      'a.created_at',
      'a.updated_at',
      'b.description',
      'b.countries',
      'b.roaming',
    ])
    .where('e.iccid', '=', iccid)
    .orderBy('a.queue_position')
    .orderBy('a.id');
}

// Usage reports are the hottest path of the service (thousands a second): building this query
// through the builder costs more than running it, so it is compiled once per dialect and only
// the ICCID parameter changes.
const usageView = compiledOnce((db, p: { iccid: string }) => usageViewQuery(db, p.iccid));

/**
 * Everything a usage report needs, in one statement: the eSIM, where it is attached and its
 * live assignments (one row per assignment, or a single row with no assignment columns).
 */
export async function readUsageView(
  db: Executor,
  iccid: string,
  dialect: DialectName,
): Promise<UsageView | undefined> {
  if (dialect === 'postgres') {
    // Reports on one eSIM queue on its row instead of racing. The lock is its own statement so
    // the read below gets a snapshot taken after the previous holder committed (FOR UPDATE on
    // the join would re-check only the locked row, not the joined ones). SQLite runs one writing
    // transaction at a time anyway and has no FOR UPDATE.
    await db.selectFrom('esims').select('iccid').where('iccid', '=', iccid).forUpdate().execute();
  }
  const rows = (await usageView.execute(db, { iccid })).rows;
  const first = rows[0];
  if (first === undefined) return undefined;
  const network: EsimLocation | undefined =
    first.n_mcc === null || first.n_mcc === undefined
      ? undefined
      : {
          iccid,
          mcc: first.n_mcc,
          mnc: first.n_mnc ?? '',
          networkName: first.n_name ?? '',
          country: first.n_country ?? '',
          attached: Number(first.n_attached) === 1,
          lastSeen: first.n_last_seen ?? '',
          firstUsedAt: first.n_first_used ?? null,
        };
  const live: LiveAssignment[] = [];
  for (const r of rows) {
    // A row without an assignment (the left join found none) has neither id nor state.
    if (r.id === null || r.id === undefined || r.state === null || r.state === undefined) continue;
    const assignment = assignmentOf({
      id: r.id,
      reference: r.reference ?? '',
      iccid,
      organisation_id: r.organisation_id ?? first.e_org,
      bundle_name: r.bundle_name ?? '',
      batch_id: r.batch_id ?? null,
      state: r.state,
      initial_bytes: r.initial_bytes ?? 0,
      remaining_bytes: r.remaining_bytes ?? 0,
      used_bytes: r.used_bytes ?? 0,
      unlimited: r.unlimited ?? 0,
      duration_days: r.duration_days ?? 0,
      queue_position: r.queue_position ?? 0,
      processing_due_at: r.processing_due_at ?? null,
      valid_until: r.valid_until ?? '',
      start_time: r.start_time ?? null,
      end_time: r.end_time ?? null,
      created_at: r.created_at ?? '',
      updated_at: r.updated_at ?? '',
    });
    live.push({
      assignment,
      description: r.description ?? '',
      coverage: new Set([...parseList(r.countries), ...parseList(r.roaming)]),
    });
  }
  return {
    esim: {
      iccid: first.e_iccid,
      organisationId: first.e_org,
      profileStatus: first.e_status,
      state: first.e_state,
    },
    network,
    live,
  };
}
