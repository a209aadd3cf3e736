import type { Db } from '../../store/database.js';
import {
  bundlesWithoutJson,
  countBundles,
  insertBundles,
  purgeBundleJson,
  readJsonFingerprint,
  updateJsonFingerprint,
  writeBundleJson,
} from '../../store/repositories/catalogue-repository.js';
import { builtInCatalogueStepwise } from './built-in.js';
import { bundleJson, bundleJsonFingerprint } from './bundle-json.js';
import { baseCountryRegions } from './regions.js';
import { runWrite } from '../runner/use-case-runner.js';

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
    await runWrite(
      { store: { db } },
      async (trx) => {
        for (let i = 0; i < bundles.length; i += SLICE) {
          await insertBundles(trx, bundles.slice(i, i + SLICE), regions, at, bundleJson);
          await pause();
        }
        await updateJsonFingerprint(trx, bundleJsonFingerprint());
      },
      undefined,
    );
  } catch (error) {
    // Several instances starting on one empty PostgreSQL database race here; one wins.
    if ((await countBundles(db)) > 0) return 0;
    throw error;
  }
  return bundles.length;
}

/**
 * Stores the JSON of the bundles written before it was kept with each row (016-bundle-json), in
 * slices of one transaction each. Returns how many were encoded. Until a row has it, catalogue
 * pages encode that row from its columns. JSON stored by another encoder than this version's
 * (bundleJsonFingerprint: a release changed country names, regions or the view), or by an
 * unrecorded one, is forgotten first and encoded again.
 */
export async function encodeMissingBundleJson(db: Db): Promise<number> {
  const fingerprint = bundleJsonFingerprint();
  if ((await readJsonFingerprint(db)) !== fingerprint) {
    await runWrite({ store: { db } }, (trx) => purgeBundleJson(trx, fingerprint), undefined);
  }
  let encoded = 0;
  for (;;) {
    const bundles = await bundlesWithoutJson(db, SLICE);
    if (bundles.length === 0) return encoded;
    await runWrite(
      { store: { db } },
      async (trx) => {
        for (const bundle of bundles) await writeBundleJson(trx, bundle.name, bundleJson(bundle));
      },
      undefined,
    );
    encoded += bundles.length;
    await pause();
  }
}
