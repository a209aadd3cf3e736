import type { Executor } from '../../store/database.js';
import { findBundleByName } from '../../store/repositories/catalogue-repository.js';
import type { InventoryBatchRow } from '../../store/repositories/inventory-repository.js';
import { availableBatches } from '../../store/repositories/inventory-repository.js';
import type { Bundle } from '../catalogue/bundle.js';

// The organisation's inventory: the bundles bought and not yet applied, each with its unexpired
// batches (oldest first, the order units are drawn in). Read in the order of the index of the
// batches with units left (022-growth), a chunk at a time: the cost follows the batches left,
// not the batches ever bought, and memory holds one chunk however large the inventory.

/** The organisation's unexpired batches with units left, by bundle name, oldest first. */
export { availableBatches };

/** One step of the inventory in order: a bundle starts, or a batch of the current bundle. */
export type InventoryItem =
  | {
      readonly kind: 'bundle';
      readonly name: string;
      /** The catalogue bundle; undefined when it has since been removed from the catalogue. */
      readonly bundle: Bundle | undefined;
    }
  | { readonly kind: 'batch'; readonly batch: InventoryBatchRow };

/** The inventory as a sequence: each bundle, then its batches, bundles by name. */
export async function* inventoryItems(
  db: Executor,
  organisationId: string,
  at: string,
): AsyncGenerator<InventoryItem> {
  let current: string | undefined;
  for await (const batch of availableBatches(db, organisationId, at)) {
    if (batch.bundleName !== current) {
      current = batch.bundleName;
      yield { kind: 'bundle', name: current, bundle: await findBundleByName(db, current) };
    }
    yield { kind: 'batch', batch };
  }
}

export interface InventoryEntry {
  readonly name: string;
  /** The catalogue bundle; undefined when it has since been removed from the catalogue. */
  readonly bundle: Bundle | undefined;
  readonly batches: InventoryBatchRow[];
  /** Units left over the batches listed. */
  remaining: number;
}

export interface InventoryView {
  readonly entries: readonly InventoryEntry[];
  /** Whether batches beyond `limit` were left out. */
  readonly truncated: boolean;
}

/** The first `limit` batches of the inventory grouped by bundle, for a page a person reads. */
export async function readInventory(
  db: Executor,
  organisationId: string,
  at: string,
  limit: number,
): Promise<InventoryView> {
  const entries: InventoryEntry[] = [];
  let batches = 0;
  for await (const item of inventoryItems(db, organisationId, at)) {
    if (item.kind === 'bundle') {
      entries.push({ name: item.name, bundle: item.bundle, batches: [], remaining: 0 });
      continue;
    }
    if (batches === limit)
      return { entries: entries.filter((e) => e.batches.length > 0), truncated: true };
    const entry = entries[entries.length - 1];
    if (entry === undefined) continue;
    entry.batches.push(item.batch);
    entry.remaining += item.batch.remaining;
    batches += 1;
  }
  return { entries, truncated: false };
}
