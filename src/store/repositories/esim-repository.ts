import type { Executor } from '../database.js';
import type { EsimRow, ProfileStatus } from '../schema.js';

/** An eSIM of the organisation; undefined when it does not exist or belongs to another. */
export async function findOwnedEsim(
  db: Executor,
  organisationId: string,
  iccid: string,
): Promise<EsimRow | undefined> {
  return db
    .selectFrom('esims')
    .selectAll()
    .where('iccid', '=', iccid)
    .where('organisation_id', '=', organisationId)
    .executeTakeFirst();
}

export async function findEsim(db: Executor, iccid: string): Promise<EsimRow | undefined> {
  return db.selectFrom('esims').selectAll().where('iccid', '=', iccid).executeTakeFirst();
}

export async function countEsims(db: Executor, organisationId: string): Promise<number> {
  const row = await db
    .selectFrom('esims')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('organisation_id', '=', organisationId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A page of the organisation's eSIMs, oldest first (stable: ties broken by ICCID). */
export async function listEsims(
  db: Executor,
  organisationId: string,
  page: { offset: number; limit: number; direction: 'asc' | 'desc' },
): Promise<EsimRow[]> {
  return db
    .selectFrom('esims')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .orderBy('created_at', page.direction)
    .orderBy('iccid', page.direction)
    .offset(page.offset)
    .limit(page.limit)
    .execute();
}

export async function listEsimsByIccid(
  db: Executor,
  organisationId: string,
  iccids: readonly string[],
): Promise<EsimRow[]> {
  if (iccids.length === 0) return [];
  return db
    .selectFrom('esims')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .where('iccid', 'in', iccids)
    .execute();
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

export interface EsimActivity {
  /** Name of the newest history entry, e.g. "Bundle Applied"; empty when none. */
  readonly lastAction: string;
  readonly actionDate: string;
  /** When a bundle was first assigned to the eSIM; empty when never. */
  readonly assignedDate: string;
}

/** The newest history entry and first assignment of each eSIM, in two statements. */
export async function esimActivity(
  db: Executor,
  iccids: readonly string[],
): Promise<Map<string, EsimActivity>> {
  const result = new Map<string, EsimActivity>();
  if (iccids.length === 0) return result;
  const [latest, assigned] = await Promise.all([
    db
      .selectFrom('esim_history as h')
      .select(['h.iccid', 'h.name', 'h.created_at'])
      .where('h.id', 'in', (eb) =>
        eb
          .selectFrom('esim_history')
          .select((e) => e.fn.max('id').as('id'))
          .where('iccid', 'in', iccids)
          .groupBy('iccid'),
      )
      .execute(),
    db
      .selectFrom('assignments')
      .select((eb) => ['iccid', eb.fn.min('created_at').as('first')])
      .where('iccid', 'in', iccids)
      .groupBy('iccid')
      .execute(),
  ]);
  const firstAssigned = new Map(assigned.map((a) => [a.iccid, String(a.first)]));
  const newest = new Map(latest.map((h) => [h.iccid, h]));
  for (const iccid of iccids) {
    const h = newest.get(iccid);
    result.set(iccid, {
      lastAction: h?.name ?? '',
      actionDate: h?.created_at ?? '',
      assignedDate: firstAssigned.get(iccid) ?? '',
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

/** How many of the organisation's eSIMs are in each profile status (absent: none). */
export async function countEsimsByProfileStatus(
  db: Executor,
  organisationId: string,
): Promise<Partial<Record<ProfileStatus, number>>> {
  const rows = await db
    .selectFrom('esims')
    .select(['profile_status', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('organisation_id', '=', organisationId)
    .groupBy('profile_status')
    .execute();
  const counts: Partial<Record<ProfileStatus, number>> = {};
  for (const row of rows) counts[row.profile_status] = Number(row.n);
  return counts;
}
