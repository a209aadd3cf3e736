import type { Clock } from '../../clock.js';
import { iso } from '../../clock.js';
import type { Db, Executor } from '../../store/database.js';
import {
  deleteBundles,
  listBundleNames,
  referencedBundleNames,
  retireBundles,
} from '../../store/repositories/catalogue-repository.js';
import type { AuditActor } from '../audit/audit-log.js';
import { audit, systemActor } from '../audit/audit-log.js';
import type { Bundle } from './bundle.js';
import { bundleJson } from './bundle-json.js';
import { saveBundles } from './save-bundles.js';
import { runWrite } from '../runner/use-case-runner.js';

// Applying an imported catalogue, all in one transaction. Without replace, the file adds bundles
// and replaces those of the same name. With replace, bundles missing from the file go too, except
// those that inventory or eSIM assignments refer to by name: those are retired (taken out of every
// group, so nobody can see or order them) and stay readable for what already refers to them.
// An import that writes leaves its audit row in the same transaction.

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

/** Applies the import in the caller's transaction: what it adds, updates, removes and retires. */
export async function applyCatalogueImport(
  trx: Executor,
  bundles: readonly Bundle[],
  options: ImportOptions,
  at: string,
): Promise<ImportSummary> {
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
    await retireBundles(trx, retired, bundleJson);
    await saveBundles(trx, bundles, at);
  }
  return { added, updated, removed, retired, dryRun: options.dryRun };
}

export interface CatalogueImportDeps {
  readonly store: { readonly db: Db };
  readonly clock: Clock;
  /** Who imports, for the audit log (the system when not given). */
  readonly actor?: AuditActor;
}

export interface CatalogueImportInput extends ImportOptions {
  readonly bundles: readonly Bundle[];
  /** Where the bundles came from (a file name), for the audit log. */
  readonly source: string;
}

/** The catalogue import use case (esim catalogue import): all or nothing, audited. */
export async function importCatalogue(
  deps: CatalogueImportDeps,
  input: CatalogueImportInput,
): Promise<ImportSummary> {
  const now = deps.clock.now();
  return runWrite(
    deps,
    async (trx) => {
      const summary = await applyCatalogueImport(trx, input.bundles, input, iso(now));
      if (summary.dryRun) return summary;
      await audit(trx, deps.actor ?? systemActor, {
        action: 'catalogue.imported',
        organisationId: null,
        at: now,
        details: {
          file: input.source,
          replace: input.replace,
          added: summary.added.length,
          updated: summary.updated.length,
          removed: summary.removed.length,
          retired: summary.retired.length,
        },
      });
      return summary;
    },
    undefined,
  );
}
