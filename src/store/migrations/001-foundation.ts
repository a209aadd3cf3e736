import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// The foundation schema: organisations, users, the catalogue, and the tables every later area
// builds on (orders, ledger, payments, eSIMs, assignments, network, callbacks). Later changes go
// in new numbered files; an applied migration is never edited.

export const foundation = (dialect: DialectName): MigrationStep => {
  const money = dialect === 'postgres' ? 'bigint' : 'integer';
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  const real = dialect === 'postgres' ? 'double precision' : 'real';

  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('organisations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('api_key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('api_key_enc', 'text', (c) => c.notNull())
        .addColumn('tax_liable', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('addr1', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('addr2', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('city', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('country', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('postcode', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('callback_url', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('callback_version', 'text', (c) => c.notNull().defaultTo('V2'))
        .addColumn('notes', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('groups', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('currency', 'text', (c) => c.notNull().defaultTo('USD'))
        .addColumn('balance', money, (c) =>
          c
            .notNull()
            .defaultTo(0)
            .check(sql`balance >= 0`),
        )
        .addColumn('test_credit', money, (c) =>
          c
            .notNull()
            .defaultTo(0)
            .check(sql`test_credit >= 0`),
        )
        .addColumn('test_credit_expiry', 'text')
        .addColumn('business_type', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('website', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('product_description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
        .addColumn('first_name', 'text', (c) => c.notNull())
        .addColumn('last_name', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('email_address', 'text', (c) => c.notNull())
        .addColumn('phone_number', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('time_zone', 'text', (c) => c.notNull().defaultTo('UTC'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('users_org_email', ['organisation_id', 'email_address'])
        .execute();

      await db.schema
        .createTable('bundles')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('groups', 'text', (c) => c.notNull())
        .addColumn('countries', 'text', (c) => c.notNull())
        .addColumn('roaming', 'text', (c) => c.notNull())
        .addColumn('data_amount', 'integer', (c) => c.notNull())
        .addColumn('duration', 'integer', (c) => c.notNull())
        .addColumn('speed', 'text', (c) => c.notNull())
        .addColumn('autostart', 'integer', (c) => c.notNull())
        .addColumn('unlimited', 'integer', (c) => c.notNull())
        .addColumn('price', money, (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('bundle_countries')
        .addColumn('bundle_name', 'text', (c) =>
          c.notNull().references('bundles.name').onDelete('cascade'),
        )
        .addColumn('iso', 'text', (c) => c.notNull())
        .addColumn('region', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('bundle_countries_pk', ['bundle_name', 'iso'])
        .execute();
      await db.schema
        .createIndex('bundle_countries_iso')
        .on('bundle_countries')
        .columns(['iso', 'bundle_name'])
        .execute();
      await db.schema
        .createIndex('bundle_countries_region')
        .on('bundle_countries')
        .columns(['region', 'bundle_name'])
        .execute();
      await db.schema
        .createTable('bundle_groups')
        .addColumn('bundle_name', 'text', (c) =>
          c.notNull().references('bundles.name').onDelete('cascade'),
        )
        .addColumn('group_name', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('bundle_groups_pk', ['bundle_name', 'group_name'])
        .execute();
      await db.schema
        .createIndex('bundle_groups_group')
        .on('bundle_groups')
        .columns(['group_name', 'bundle_name'])
        .execute();

      await db.schema
        .createTable('orders')
        .addColumn('reference', 'text', (c) => c.primaryKey())
        .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('status_message', 'text', (c) => c.notNull())
        .addColumn('total', money, (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('assign', 'integer', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull().defaultTo('order'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('orders_org_created')
        .on('orders')
        .columns(['organisation_id', 'created_at'])
        .execute();
      await db.schema
        .createTable('order_items')
        .addColumn('id', serial, (c) =>
          c.primaryKey().$call((b) => (dialect === 'sqlite' ? b.autoIncrement() : b)),
        )
        .addColumn('order_reference', 'text', (c) => c.notNull().references('orders.reference'))
        .addColumn('line_no', 'integer', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('item', 'text', (c) => c.notNull())
        .addColumn('quantity', 'integer', (c) => c.notNull())
        .addColumn('price_per_unit', money, (c) => c.notNull())
        .addColumn('sub_total', money, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('order_items_order')
        .on('order_items')
        .columns(['order_reference', 'line_no'])
        .execute();

      await db.schema
        .createTable('inventory_batches')
        .addColumn('id', serial, (c) =>
          c.primaryKey().$call((b) => (dialect === 'sqlite' ? b.autoIncrement() : b)),
        )
        .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
        .addColumn('bundle_name', 'text', (c) => c.notNull())
        .addColumn('order_reference', 'text', (c) => c.notNull())
        .addColumn('total', 'integer', (c) => c.notNull())
        .addColumn('remaining', 'integer', (c) => c.notNull().check(sql`remaining >= 0`))
        .addColumn('expiry', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('inventory_org_bundle')
        .on('inventory_batches')
        .columns(['organisation_id', 'bundle_name', 'expiry'])
        .execute();

      await db.schema
        .createTable('ledger_entries')
        .addColumn('id', serial, (c) =>
          c.primaryKey().$call((b) => (dialect === 'sqlite' ? b.autoIncrement() : b)),
        )
        .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('balance_delta', money, (c) => c.notNull())
        .addColumn('test_credit_delta', money, (c) => c.notNull())
        .addColumn('balance_after', money, (c) => c.notNull())
        .addColumn('test_credit_after', money, (c) => c.notNull())
        .addColumn('reference', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('ledger_org')
        .on('ledger_entries')
        .columns(['organisation_id', 'id'])
        .execute();

      await db.schema
        .createTable('payment_cards')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
        .addColumn('token', 'text', (c) => c.notNull())
        .addColumn('brand', 'text', (c) => c.notNull())
        .addColumn('last4', 'text', (c) => c.notNull())
        .addColumn('exp_month', 'integer', (c) => c.notNull())
        .addColumn('exp_year', 'integer', (c) => c.notNull())
        .addColumn('is_default', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('payment_cards_org')
        .on('payment_cards')
        .columns(['organisation_id'])
        .execute();

      await db.schema
        .createTable('topups')
        .addColumn('ref', serial, (c) =>
          c.primaryKey().$call((b) => (dialect === 'sqlite' ? b.autoIncrement() : b)),
        )
        .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
        .addColumn('amount', money, (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('card_id', 'text', (c) => c.notNull())
        .addColumn('processor_ref', 'text')
        .addColumn('failure_reason', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('topups_status')
        .on('topups')
        .columns(['status', 'created_at'])
        .execute();

      await db.schema
        .createTable('idempotency_keys')
        .addColumn('organisation_id', 'text', (c) => c.notNull())
        .addColumn('idem_key', 'text', (c) => c.notNull())
        .addColumn('request_hash', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('response_status', 'integer')
        .addColumn('response_body', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['organisation_id', 'idem_key'])
        .execute();

      await db.schema
        .createTable('esims')
        .addColumn('iccid', 'text', (c) => c.primaryKey())
        .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
        .addColumn('matching_id', 'text', (c) => c.notNull().unique())
        .addColumn('smdp_address', 'text', (c) => c.notNull())
        .addColumn('profile_status', 'text', (c) => c.notNull())
        .addColumn('pin', 'text', (c) => c.notNull())
        .addColumn('puk', 'text', (c) => c.notNull())
        .addColumn('msisdn', 'text')
        .addColumn('first_installed_at', 'text')
        .addColumn('order_reference', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('esims_org')
        .on('esims')
        .columns(['organisation_id', 'created_at'])
        .execute();

      await db.schema
        .createTable('assignments')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('reference', 'text', (c) => c.notNull())
        .addColumn('iccid', 'text', (c) => c.notNull().references('esims.iccid'))
        .addColumn('organisation_id', 'text', (c) => c.notNull())
        .addColumn('bundle_name', 'text', (c) => c.notNull())
        .addColumn('batch_id', 'integer')
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('initial_bytes', money, (c) => c.notNull())
        .addColumn('remaining_bytes', money, (c) => c.notNull())
        .addColumn('used_bytes', money, (c) => c.notNull().defaultTo(0))
        .addColumn('unlimited', 'integer', (c) => c.notNull())
        .addColumn('duration_days', 'integer', (c) => c.notNull())
        .addColumn('queue_position', money, (c) => c.notNull())
        .addColumn('processing_due_at', 'text')
        .addColumn('valid_until', 'text', (c) => c.notNull())
        .addColumn('start_time', 'text')
        .addColumn('end_time', 'text')
        .addColumn('alerts_sent', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('assignments_iccid')
        .on('assignments')
        .columns(['iccid', 'queue_position'])
        .execute();
      await db.schema
        .createIndex('assignments_reference')
        .on('assignments')
        .columns(['reference'])
        .execute();
      await db.schema
        .createIndex('assignments_state')
        .on('assignments')
        .columns(['state', 'processing_due_at'])
        .execute();

      await db.schema
        .createTable('esim_history')
        .addColumn('id', serial, (c) =>
          c.primaryKey().$call((b) => (dialect === 'sqlite' ? b.autoIncrement() : b)),
        )
        .addColumn('iccid', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('bundle', 'text', (c) => c.notNull())
        .addColumn('bundle_state', 'text', (c) => c.notNull())
        .addColumn('alert_type', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('esim_history_iccid')
        .on('esim_history')
        .columns(['iccid', 'id'])
        .execute();

      await db.schema
        .createTable('esim_network')
        .addColumn('iccid', 'text', (c) => c.primaryKey())
        .addColumn('mcc', 'text', (c) => c.notNull())
        .addColumn('mnc', 'text', (c) => c.notNull())
        .addColumn('network_name', 'text', (c) => c.notNull())
        .addColumn('country', 'text', (c) => c.notNull())
        .addColumn('attached', 'integer', (c) => c.notNull())
        .addColumn('last_seen', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('sms_messages')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('iccid', 'text', (c) => c.notNull())
        .addColumn('organisation_id', 'text', (c) => c.notNull())
        .addColumn('message', 'text', (c) => c.notNull())
        .addColumn('sender', 'text', (c) => c.notNull())
        .addColumn('msisdn', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('sms_iccid')
        .on('sms_messages')
        .columns(['iccid', 'created_at'])
        .execute();

      await db.schema
        .createTable('sim_state')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('sim_faults')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('route', 'text', (c) => c.notNull())
        .addColumn('method', 'text', (c) => c.notNull())
        .addColumn('status', 'integer')
        .addColumn('remaining', 'integer')
        .addColumn('probability', real)
        .addColumn('latency_ms', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('callback_events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('organisation_id', 'text', (c) => c.notNull())
        .addColumn('iccid', 'text', (c) => c.notNull())
        .addColumn('alert_type', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'text', (c) => c.notNull())
        .addColumn('locked_until', 'text')
        .addColumn('locked_by', 'text')
        .addColumn('last_status', 'integer')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('delivered_at', 'text')
        .execute();
      await db.schema
        .createIndex('callback_events_due')
        .on('callback_events')
        .columns(['status', 'next_attempt_at'])
        .execute();
      await db.schema
        .createIndex('callback_events_org')
        .on('callback_events')
        .columns(['organisation_id', 'created_at'])
        .execute();
      await db.schema
        .createTable('callback_attempts')
        .addColumn('id', serial, (c) =>
          c.primaryKey().$call((b) => (dialect === 'sqlite' ? b.autoIncrement() : b)),
        )
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('attempt_no', 'integer', (c) => c.notNull())
        .addColumn('attempted_at', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('latency_ms', 'integer', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('response_snippet', 'text')
        .execute();
      await db.schema
        .createIndex('callback_attempts_event')
        .on('callback_attempts')
        .columns(['event_id', 'attempt_no'])
        .execute();
    },
  };
};
