import type { Db } from '../../store/database.js';
import { countBundles, insertBundles } from '../../store/repositories/catalogue-repository.js';
import { builtInCatalogue } from './built-in.js';
import { baseCountryRegions } from './regions.js';

/**
 * Loads the built-in catalogue into an empty bundles table; a catalogue that has any bundle
 * (built-in or imported) is left alone. Returns the number of bundles inserted.
 */
export async function seedBuiltInCatalogue(db: Db, at: string): Promise<number> {
  if ((await countBundles(db)) > 0) return 0;
  const bundles = builtInCatalogue();
  try {
    await db
      .transaction()
      .execute((trx) => insertBundles(trx, bundles, baseCountryRegions(bundles), at));
  } catch (error) {
    // Several instances starting on one empty PostgreSQL database race here; one wins.
    if ((await countBundles(db)) > 0) return 0;
    throw error;
  }
  return bundles.length;
}
