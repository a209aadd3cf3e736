import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// Reads that cost what they return, not what the organisation ever held.
//
// Inventory: a partial index over the batches with units left, in the order GET /inventory
// answers and units are drawn (bundle, then oldest first). A used-up batch leaves the index, so
// an organisation's exhausted batches cost nothing to a read or a draw. Queries must spell the
// predicate `remaining > 0` literally (not as a bound parameter) for SQLite to choose the index.

export const growth = (_dialect: DialectName): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('inventory_batches_left')
      .on('inventory_batches')
      .columns(['organisation_id', 'bundle_name', 'created_at', 'id'])
      .where(sql.ref('remaining'), '>', sql.lit(0))
      .execute();
    // Replaced: with `expiry` as a range it looked cheaper to SQLite's planner than the index
    // above, then sorted every unexpired batch of the bundle, used up or not. Whether an
    // organisation ever bought a bundle (holdsBundle) needs only the first two columns.
    await db.schema.dropIndex('inventory_org_bundle').execute();
    await db.schema
      .createIndex('inventory_batches_bundle')
      .on('inventory_batches')
      .columns(['organisation_id', 'bundle_name'])
      .execute();
  },
});
