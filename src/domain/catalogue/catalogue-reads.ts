import type { DialectName, Executor } from '../../store/database.js';
import {
  bundleFromRow,
  listCatalogue,
  rowsInOrder,
} from '../../store/repositories/catalogue-repository.js';
import type {
  CatalogueFilter,
  CatalogueItemJson,
  CatalogueRow,
} from '../../store/repositories/catalogue-repository.js';
import type { Bundle } from './bundle.js';

// How every surface reads the catalogue: a bundle by name, a page of bundles (as bundles, or as
// the stored JSON of each for the API's bytes, with the rows of those stored without), the
// catalogue's version, the bundles per group.

export type {
  CatalogueFilter,
  CatalogueItemJson,
  CatalogueRow,
} from '../../store/repositories/catalogue-repository.js';
export {
  catalogueVersion,
  countBundlesByGroup,
  findBundleByName,
  listAllBundles,
  listCatalogueJson,
} from '../../store/repositories/catalogue-repository.js';

/** One page of the catalogue as bundles, and the number of bundles matching the filter. */
export async function readCataloguePage(
  db: Executor,
  dialect: DialectName,
  filter: CatalogueFilter,
): Promise<{ bundles: Bundle[]; total: number }> {
  const { rows, total } = await listCatalogue(db, dialect, filter);
  return { bundles: rows.map(bundleFromRow), total };
}

const NO_ROWS: ReadonlyMap<string, CatalogueRow> = new Map();

/** The rows of the page's bundles that have no stored JSON yet (written before 016), by name. */
export async function rowsWithoutJson(
  db: Executor,
  items: readonly CatalogueItemJson[],
): Promise<ReadonlyMap<string, CatalogueRow>> {
  if (items.every((item) => item.json !== null)) return NO_ROWS;
  const names = items.flatMap((item) => (item.json === null ? [item.name] : []));
  const rows = await rowsInOrder(db, names);
  return new Map(rows.map((row) => [row.name, row]));
}
