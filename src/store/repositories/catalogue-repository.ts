import type { Bundle } from '../../domain/bundle.js';
import { countryByIso } from '../../domain/countries.js';
import type { Executor } from '../database.js';
import type { BundleRow } from '../schema.js';

export function bundleFromRow(row: BundleRow): Bundle {
  return {
    name: row.name,
    description: row.description,
    groups: JSON.parse(row.groups) as string[],
    countries: JSON.parse(row.countries) as string[],
    roaming: JSON.parse(row.roaming) as string[],
    dataAmount: Number(row.data_amount),
    duration: Number(row.duration),
    speed: JSON.parse(row.speed) as string[],
    autostart: Number(row.autostart) === 1,
    unlimited: Number(row.unlimited) === 1,
    price: Number(row.price),
  };
}

export async function findBundleByName(db: Executor, name: string): Promise<Bundle | undefined> {
  const row = await db
    .selectFrom('bundles')
    .selectAll()
    .where('name', '=', name)
    .executeTakeFirst();
  return row === undefined ? undefined : bundleFromRow(row);
}

/** Inserts or replaces bundles, with their country and group index rows, in the caller's transaction. */
export async function upsertBundles(
  trx: Executor,
  bundles: readonly Bundle[],
  at: string,
): Promise<void> {
  for (const b of bundles) {
    await trx.deleteFrom('bundle_countries').where('bundle_name', '=', b.name).execute();
    await trx.deleteFrom('bundle_groups').where('bundle_name', '=', b.name).execute();
    await trx.deleteFrom('bundles').where('name', '=', b.name).execute();
    await trx
      .insertInto('bundles')
      .values({
        name: b.name,
        description: b.description,
        groups: JSON.stringify(b.groups),
        countries: JSON.stringify(b.countries),
        roaming: JSON.stringify(b.roaming),
        data_amount: b.dataAmount,
        duration: b.duration,
        speed: JSON.stringify(b.speed),
        autostart: b.autostart ? 1 : 0,
        unlimited: b.unlimited ? 1 : 0,
        price: b.price,
        created_at: at,
      })
      .execute();
    if (b.countries.length > 0) {
      await trx
        .insertInto('bundle_countries')
        .values(
          b.countries.map((iso) => ({
            bundle_name: b.name,
            iso,
            region: (countryByIso(iso)?.region ?? '').toLowerCase(),
          })),
        )
        .execute();
    }
    if (b.groups.length > 0) {
      await trx
        .insertInto('bundle_groups')
        .values(b.groups.map((g) => ({ bundle_name: b.name, group_name: g })))
        .execute();
    }
  }
}
