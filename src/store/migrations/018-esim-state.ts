import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// eSIM state and the organisation settings of the later live versions.
// esims.state: active, suspended (the organisation paused it: no data, no SMS) or deactivated
// (deleted from the account, for good; its profile status becomes Deactivated). state_changed_at:
// when it last changed. Lists leave deactivated eSIMs out through esims_org_profile_status
// (015), since a deactivated eSIM's profile status is Deactivated.
// organisations.billing_type: FixedCost (bundles bought up front, the default) or Consumption
// (only these read GET /catalogue/prices). organisations.ip_allow_list: a JSON array of
// addresses and CIDR ranges the API answers for this organisation; empty: any address.

export const esimState = (_dialect: DialectName): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('esims')
      .addColumn('state', 'text', (c) => c.notNull().defaultTo('active'))
      .execute();
    await db.schema.alterTable('esims').addColumn('state_changed_at', 'text').execute();
    await db.schema
      .alterTable('organisations')
      .addColumn('billing_type', 'text', (c) => c.notNull().defaultTo('FixedCost'))
      .execute();
    await db.schema
      .alterTable('organisations')
      .addColumn('ip_allow_list', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute();
  },
});
