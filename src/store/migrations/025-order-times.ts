import type { Kysely } from 'kysely';
import type { MigrationStep } from './index.js';

// orders by (organisation, source, time, number): the `createdAt` filter of GET /orders (v2.2
// and later) finds the first and the last order of a time range with one index probe each, and
// the page is then the range of row numbers between them (022-growth), whatever the
// organisation holds. The source is in the key so that orders and applies, numbered apart, are
// probed apart.

export const orderTimes = (): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('orders_org_source_created')
      .on('orders')
      .columns(['organisation_id', 'source', 'created_at', 'seq'])
      .execute();
  },
});
