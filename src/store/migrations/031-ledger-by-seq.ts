import type { Kysely } from 'kysely';
import type { MigrationStep } from './index.js';

// An organisation's journal is read in one order only, the order its movements were applied,
// which its entries' numbers (`seq`, 022) and ids both follow: every movement locks the
// organisation's balance row before it journals, so one organisation's entries are written one
// transaction at a time. The reads that went through `ledger_org` (organisation_id, id) — the
// newest entries (`esim ledger show`), the CSV export's chunks, whether test credit expired
// after an order, the journal check — now go through `ledger_entries_org_seq` (organisation_id,
// seq), which the journal's pages by number already read, and `ledger_org` is dropped: 53 bytes
// less per journal entry on SQLite (bench/space.ts), and one index write less per movement.

export const ledgerBySeq = (): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    await db.schema.dropIndex('ledger_org').ifExists().execute();
  },
});
