import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// Orders, idempotency and payments:
// - order_items.iccids: the eSIMs each assigned line went onto, so an order reads back with the
//   same `iccids`/`esims` it was answered with.
// - idempotency_keys.owner/locked_until: who holds a running key and until when; a holder that
//   died is replaced once its lease passes, and a late finisher cannot overwrite the new holder.
// - topups: the Idempotency-Key that asked for the charge (a charge of unknown outcome completes
//   it later) and the reconciliation schedule.
// - test_processor_charges: what the built-in test processor has received, so a charge whose
//   answer was lost can be looked up, from any server process sharing the database.

export const orders = (dialect: DialectName): MigrationStep => {
  const money = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('order_items')
        .addColumn('iccids', 'text', (c) => c.notNull().defaultTo('[]'))
        .execute();

      await db.schema.alterTable('idempotency_keys').addColumn('owner', 'text').execute();
      await db.schema.alterTable('idempotency_keys').addColumn('locked_until', 'text').execute();
      await db.schema
        .createIndex('idempotency_keys_expiry')
        .on('idempotency_keys')
        .columns(['expires_at'])
        .execute();

      await db.schema.alterTable('topups').addColumn('idempotency_key', 'text').execute();
      await db.schema.alterTable('topups').addColumn('next_check_at', 'text').execute();
      await db.schema
        .alterTable('topups')
        .addColumn('checks', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex('topups_due')
        .on('topups')
        .columns(['status', 'next_check_at'])
        .execute();

      await db.schema
        .createTable('test_processor_charges')
        .addColumn('reference', 'text', (c) => c.primaryKey())
        .addColumn('token', 'text', (c) => c.notNull())
        .addColumn('amount', money, (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull()) // processing | succeeded | declined
        .addColumn('decline_code', 'text')
        .addColumn('processor_ref', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
    },
  };
};
