import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// Key roll-over and the audit log. A rotated-out API key stays valid until `valid_until` (its
// grace period); the organisation row always holds the newest key, which also signs V3
// callbacks. Audit rows record sensitive operator and organisation actions; they are only ever
// inserted. An index serves the eSIM counts of /metrics.

export const operations = (dialect: DialectName): MigrationStep => {
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('previous_api_keys')
        .addColumn('key_hash', 'text', (c) => c.primaryKey())
        .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
        .addColumn('rotated_at', 'text', (c) => c.notNull())
        .addColumn('valid_until', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('previous_api_keys_org')
        .on('previous_api_keys')
        .columns(['organisation_id', 'valid_until'])
        .execute();
      await db.schema
        .createTable('audit_log')
        .addColumn('id', serial, (c) =>
          c.primaryKey().$call((b) => (dialect === 'sqlite' ? b.autoIncrement() : b)),
        )
        .addColumn('at', 'text', (c) => c.notNull())
        .addColumn('organisation_id', 'text')
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('details', 'text', (c) => c.notNull().defaultTo('{}'))
        .execute();
      // /metrics counts eSIMs by profile status at every scrape: an index scan, not a table scan.
      await db.schema
        .createIndex('esims_profile_status')
        .on('esims')
        .columns(['profile_status'])
        .execute();
      await db.schema
        .createIndex('audit_log_org')
        .on('audit_log')
        .columns(['organisation_id', 'id'])
        .execute();
    },
  };
};
