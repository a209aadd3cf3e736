import type { Db } from '../../store/database.js';
import { countBundles, insertBundles } from '../../store/repositories/catalogue-repository.js';
import { builtInCatalogueStepwise } from './built-in.js';
import { baseCountryRegions } from './regions.js';

/** Bundles per insert; between two, the seed lets other work run. */
const SLICE = 400;

/** Lets the event loop run: a first start answers its liveness probe while it seeds. */
const pause = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Loads the built-in catalogue into an empty bundles table; a catalogue that has any bundle
 * (built-in or imported) is left alone. Returns the number of bundles inserted. One transaction,
 * in slices, with a pause between two.
 */
export async function seedBuiltInCatalogue(db: Db, at: string): Promise<number> {
  if ((await countBundles(db)) > 0) return 0;
  await pause();
  const bundles = await builtInCatalogueStepwise(pause);
  const regions = baseCountryRegions(bundles);
  await pause();
  try {
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < bundles.length; i += SLICE) {
        await insertBundles(trx, bundles.slice(i, i + SLICE), regions, at);
        await pause();
      }
    });
  } catch (error) {
    // Several instances starting on one empty PostgreSQL database race here; one wins.
    if ((await countBundles(db)) > 0) return 0;
    throw error;
  }
  return bundles.length;
}
