import type { Executor } from '../../store/database.js';
import type { LedgerEntry } from '../../store/repositories/ledger-repository.js';
import { ledgerEntriesAfter } from '../../store/repositories/ledger-repository.js';

// How the surfaces read money: the organisation's funds, its ledger (a page, all of it, or the
// whole journal in order, a chunk at a time) and its default card.

export type { LedgerEntry };
export {
  listLedgerEntries,
  pageLedgerEntries,
  readFunds,
} from '../../store/repositories/ledger-repository.js';
export type { SavedCard } from '../../store/repositories/payment-repository.js';
export { findDefaultCard } from '../../store/repositories/payment-repository.js';

const CHUNK = 1000;

/**
 * The organisation's ledger, oldest entry first, read in chunks so a long journal never sits in
 * memory whole (the portal's CSV export).
 */
export async function* ledgerInOrder(
  db: Executor,
  organisationId: string,
): AsyncGenerator<LedgerEntry> {
  let after = 0;
  for (;;) {
    const chunk = await ledgerEntriesAfter(db, organisationId, after, CHUNK);
    yield* chunk;
    const last = chunk.at(-1);
    if (last === undefined || chunk.length < CHUNK) return;
    after = last.id;
  }
}
