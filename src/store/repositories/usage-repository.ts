import type { Executor } from '../database.js';

// Data used per organisation and UTC day (015-portal-money), added to in the transaction of the
// usage it counts.

/** Adds `bytes` to the organisation's total of `day` (YYYY-MM-DD). */
export async function recordDailyUsage(
  trx: Executor,
  organisationId: string,
  day: string,
  bytes: number,
): Promise<void> {
  await trx
    .insertInto('usage_days')
    .values({ organisation_id: organisationId, day, bytes })
    .onConflict((oc) =>
      oc
        .columns(['organisation_id', 'day'])
        .doUpdateSet((eb) => ({ bytes: eb('usage_days.bytes', '+', bytes) })),
    )
    .execute();
}

/** Bytes used by the organisation from day `from` to day `to`, both included. */
export async function usageBetween(
  db: Executor,
  organisationId: string,
  from: string,
  to: string,
): Promise<number> {
  const row = await db
    .selectFrom('usage_days')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('bytes'), eb.lit(0)).as('total'))
    .where('organisation_id', '=', organisationId)
    .where('day', '>=', from)
    .where('day', '<=', to)
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

/** Adds `bytes` to the eSIM's total of `day` (024-console). */
export async function recordEsimDailyUsage(
  trx: Executor,
  iccid: string,
  day: string,
  bytes: number,
): Promise<void> {
  await trx
    .insertInto('esim_usage_days')
    .values({ iccid, day, bytes })
    .onConflict((oc) =>
      oc
        .columns(['iccid', 'day'])
        .doUpdateSet((eb) => ({ bytes: eb('esim_usage_days.bytes', '+', bytes) })),
    )
    .execute();
}

export interface DayUsage {
  readonly day: string;
  readonly bytes: number;
}

/** The organisation's days with data used from `from` to `to` (both included), oldest first. */
export async function organisationUsageDays(
  db: Executor,
  organisationId: string,
  from: string,
  to: string,
): Promise<DayUsage[]> {
  const rows = await db
    .selectFrom('usage_days')
    .select(['day', 'bytes'])
    .where('organisation_id', '=', organisationId)
    .where('day', '>=', from)
    .where('day', '<=', to)
    .orderBy('day')
    .execute();
  return rows.map((r) => ({ day: r.day, bytes: Number(r.bytes) }));
}

/** The eSIM's days with data used from `from` to `to` (both included), oldest first. */
export async function esimUsageDays(
  db: Executor,
  iccid: string,
  from: string,
  to: string,
): Promise<DayUsage[]> {
  const rows = await db
    .selectFrom('esim_usage_days')
    .select(['day', 'bytes'])
    .where('iccid', '=', iccid)
    .where('day', '>=', from)
    .where('day', '<=', to)
    .orderBy('day')
    .execute();
  return rows.map((r) => ({ day: r.day, bytes: Number(r.bytes) }));
}
