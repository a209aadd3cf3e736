import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// Usage callbacks: a resend restarts the retry schedule without renumbering past attempts, so
// the schedule position is counted from `retry_from` (the attempt count when the round began).
// The org/status index serves the delivery list with its status filter.

export const callbacks = (dialect: DialectName): MigrationStep => {
  void dialect;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('callback_events')
        .addColumn('retry_from', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex('callback_events_org_status')
        .on('callback_events')
        .columns(['organisation_id', 'status', 'created_at'])
        .execute();
      await db.schema
        .createIndex('callback_events_lease')
        .on('callback_events')
        .columns(['status', 'locked_until'])
        .execute();
    },
  };
};
