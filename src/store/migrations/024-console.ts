import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// The simulator console of the portal and the usage charts.
// - api_requests: the request journal, recent API calls (method, path, status, time,
//   organisation), written in simulator mode only and capped (the oldest rows go as new ones
//   come, see domain/simulator/request-journal.ts); read newest first per organisation through
//   (organisation_id, id).
// - esim_usage_days: data used per eSIM and UTC day, added to in the usage's own transaction
//   beside usage_days (015), so an eSIM's chart reads at most 30 rows by its primary key.
// - callback_attempts.request_headers / request_body: what each attempt sent, as sent (headers
//   as a JSON object), so a delivery can be inspected; null for attempts made before 024.
// - sms_messages (organisation_id, created_at) and mail_outbox (to_address, id): an
//   organisation's own outbox is read by index, newest first.

export const consoleTables = (dialect: DialectName): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
    const bytes = dialect === 'postgres' ? 'bigint' : 'integer';
    await db.schema
      .createTable('api_requests')
      .addColumn('id', serial, (c) =>
        c.primaryKey().$call((b) => (dialect === 'sqlite' ? b.autoIncrement() : b)),
      )
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('status', 'integer', (c) => c.notNull())
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('api_requests_org')
      .on('api_requests')
      .columns(['organisation_id', 'id'])
      .execute();
    await db.schema
      .createTable('esim_usage_days')
      .addColumn('iccid', 'text', (c) => c.notNull())
      .addColumn('day', 'text', (c) => c.notNull()) // YYYY-MM-DD, UTC
      .addColumn('bytes', bytes, (c) => c.notNull())
      .addPrimaryKeyConstraint('esim_usage_days_pk', ['iccid', 'day'])
      .execute();
    await db.schema.alterTable('callback_attempts').addColumn('request_headers', 'text').execute();
    await db.schema.alterTable('callback_attempts').addColumn('request_body', 'text').execute();
    await db.schema
      .createIndex('sms_messages_org')
      .on('sms_messages')
      .columns(['organisation_id', 'created_at'])
      .execute();
    await db.schema
      .createIndex('mail_outbox_to')
      .on('mail_outbox')
      .columns(['to_address', 'id'])
      .execute();
  },
});
