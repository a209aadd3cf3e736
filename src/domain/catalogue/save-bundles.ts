import type { Executor } from '../../store/database.js';
import { upsertBundles } from '../../store/repositories/catalogue-repository.js';
import type { Bundle } from './bundle.js';
import { bundleJson } from './bundle-json.js';
import { baseCountryRegions } from './regions.js';

/** Inserts or replaces bundles, indexed by base country and region, in the caller's transaction. */
export async function saveBundles(
  trx: Executor,
  bundles: readonly Bundle[],
  at: string,
): Promise<void> {
  await upsertBundles(trx, bundles, baseCountryRegions(bundles), at, bundleJson);
}
