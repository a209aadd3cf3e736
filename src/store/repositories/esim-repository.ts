import type { Executor } from '../database.js';
import type { EsimRow } from '../schema.js';

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
  status: string,
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
