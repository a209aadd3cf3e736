import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// eSIMs and the lifecycle: when an eSIM first used data on the network (FirstUse is reported
// once), and the indexes the lifecycle scheduler reads its due rows through.

export const esims = (_dialect: DialectName): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('esim_network').addColumn('first_used_at', 'text').execute();
    await db.schema
      .createIndex('assignments_state_end')
      .on('assignments')
      .columns(['state', 'end_time'])
      .execute();
    await db.schema
      .createIndex('assignments_state_valid')
      .on('assignments')
      .columns(['state', 'valid_until'])
      .execute();
  },
});
