import type { Db } from '../../store/database.js';
import {
  deleteBundles,
  listBundleNames,
  referencedBundleNames,
  retireBundles,
} from '../../store/repositories/catalogue-repository.js';
import type { Bundle } from '../bundle.js';
import { saveBundles } from './save.js';

// Applying an imported catalogue, all in one transaction. Without replace, the file adds bundles
// and replaces those of the same name. With replace, bundles missing from the file go too, except
// those that inventory or eSIM assignments refer to by name: those are retired (taken out of every
// group, so nobody can see or order them) and stay readable for what already refers to them.

export interface ImportOptions {
  readonly replace: boolean;
  readonly dryRun: boolean;
}

export interface ImportSummary {
  readonly added: string[];
  readonly updated: string[];
  readonly removed: string[];
  readonly retired: string[];
  readonly dryRun: boolean;
}

export async function importCatalogue(
  db: Db,
  bundles: readonly Bundle[],
  options: ImportOptions,
  at: string,
): Promise<ImportSummary> {
  return db.transaction().execute(async (trx) => {
    const existing = new Set(await listBundleNames(trx));
    const incoming = new Set(bundles.map((b) => b.name));
    const added = bundles.filter((b) => !existing.has(b.name)).map((b) => b.name);
    const updated = bundles.filter((b) => existing.has(b.name)).map((b) => b.name);
    let removed: string[] = [];
    let retired: string[] = [];
    if (options.replace) {
      const referenced = await referencedBundleNames(trx);
      const absent = [...existing].filter((name) => !incoming.has(name));
      retired = absent.filter((name) => referenced.has(name));
      removed = absent.filter((name) => !referenced.has(name));
    }
    if (!options.dryRun) {
      await deleteBundles(trx, removed);
      await retireBundles(trx, retired);
      await saveBundles(trx, bundles, at);
    }
    return { added, updated, removed, retired, dryRun: options.dryRun };
  });
}
