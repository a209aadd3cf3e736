import type { Kysely } from 'kysely';
import type { MigrationStep } from './index.js';

// ledger_entries by (organisation, reference): the journal entry of one order, read by its
// reference (the running balance an order left, what a refund has given back), in one index
// probe however long the organisation's journal grows.

export const ledgerReference = (): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('ledger_org_reference')
      .on('ledger_entries')
      .columns(['organisation_id', 'reference'])
      .execute();
  },
});
