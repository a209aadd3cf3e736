import type { Executor } from '../database.js';

// Data used per organisation and UTC day (015-portal-money), added to in the transaction of the
// usage it counts.

/** Adds `bytes` to the organisation's total of `day` (YYYY-MM-DD). */
export async function addDailyUsage(
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
