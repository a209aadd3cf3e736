import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// The live v2.1 routes the contract leaves out: an eSIM carries the organisation's own
// customerRef (PUT /esims), and a unit refunded to inventory by a revoke remembers the batch it
// was bought in (source_batch_id), so a later inventory refund finds its purchase price and
// purchase date however often the unit went back and forth.

export const liveRoutes = (dialect: DialectName): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('esims').addColumn('customer_ref', 'text').execute();
    await db.schema
      .alterTable('inventory_batches')
      .addColumn('source_batch_id', dialect === 'postgres' ? 'bigint' : 'integer')
      .execute();
  },
});
