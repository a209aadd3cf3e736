import type { Kysely } from 'kysely';
import type { MigrationStep } from './index.js';

// Less kept per order and per eSIM. Three indexes no statement reads any more are dropped; each
// cost every order or eSIM its entry (bench/space.ts, SQLite: 79 bytes per order, 79 and 60
// bytes per eSIM) and a write on every insert.
//
// - `orders_org_created` (organisation_id, created_at): an organisation's orders are listed by
//   `orders_org_seq` since 022, and found by time through `orders_org_source_created` (025).
// - `esims_org` (organisation_id, created_at): the eSIM list reads `esims_org_seq` (022), the
//   filtered list `esim_filters` (026), the ICCID search `esims_org_iccid`.
// - `esims_org_profile_status` (organisation_id, profile_status): an organisation's eSIM totals
//   by status are counters (023), and the lists leave deactivated eSIMs out by their `seq`.
//
// Every statement that names an organisation's orders or eSIMs still starts with an index that
// leads with `organisation_id`; test/query-plan.ts and the plan tests check the lists.

export const unreadIndexes = (): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    for (const name of ['orders_org_created', 'esims_org', 'esims_org_profile_status']) {
      await db.schema.dropIndex(name).ifExists().execute();
    }
  },
});
