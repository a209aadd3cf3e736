import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// The portal's Overview. Data used is counted per organisation and UTC day as usage is recorded
// (in the usage's own transaction), so "data used this month" is a sum over at most 31 rows
// instead of a scan of every assignment. eSIMs are counted by profile status per organisation
// through an index that holds both columns.

export const portalMoney = (dialect: DialectName): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    const bytes = dialect === 'postgres' ? 'bigint' : 'integer';
    await db.schema
      .createTable('usage_days')
      .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
      .addColumn('day', 'text', (c) => c.notNull()) // YYYY-MM-DD, UTC
      .addColumn('bytes', bytes, (c) => c.notNull())
      .addPrimaryKeyConstraint('usage_days_pk', ['organisation_id', 'day'])
      .execute();
    await db.schema
      .createIndex('esims_org_profile_status')
      .on('esims')
      .columns(['organisation_id', 'profile_status'])
      .execute();
  },
});
