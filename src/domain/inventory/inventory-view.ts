import type { Executor } from '../../store/database.js';
import { findBundleByName } from '../../store/repositories/catalogue-repository.js';
import type { InventoryBatchRow } from '../../store/repositories/inventory-repository.js';
import { listAvailableBatches } from '../../store/repositories/inventory-repository.js';
import type { Bundle } from '../catalogue/bundle.js';

// The organisation's inventory as a person reads it: the bundles bought and not yet applied,
// each with its unexpired batches (oldest first, the order units are drawn in).

export interface InventoryEntry {
  readonly name: string;
  /** The catalogue bundle; undefined when it has since been removed from the catalogue. */
  readonly bundle: Bundle | undefined;
  readonly batches: readonly InventoryBatchRow[];
  /** Units left over all batches. */
  readonly remaining: number;
}

export async function readInventory(
  db: Executor,
  organisationId: string,
  at: string,
): Promise<InventoryEntry[]> {
  const batches = await listAvailableBatches(db, organisationId, at);
  const byBundle = new Map<string, InventoryBatchRow[]>();
  for (const b of batches) byBundle.set(b.bundleName, [...(byBundle.get(b.bundleName) ?? []), b]);
  const names = [...byBundle.keys()];
  const bundles = await Promise.all(names.map((name) => findBundleByName(db, name)));
  return names.map((name, i) => {
    const list = byBundle.get(name) ?? [];
    return {
      name,
      bundle: bundles[i],
      batches: list,
      remaining: list.reduce((sum, b) => sum + b.remaining, 0),
    };
  });
}
