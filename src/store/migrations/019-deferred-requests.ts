import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// deferred_requests: orders and applies accepted to be processed in the background (the later
// versions' asynchronous path for more than five bundles). One row per request, keyed by
// organisation and request_key (`key:<Idempotency-Key>`, or `body:<hash of the request>` when the
// client sent no key), so a retry of the same request finds its row. `reference` is the order or
// apply reference, fixed when the request is accepted. A worker claims a queued row with a lease
// (lease_owner, locked_until on the wall clock) and writes the order and the row's `done` in one
// transaction, so a crash mid-way leaves the row queued and nothing charged.

export const deferredRequests = (_dialect: DialectName): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('deferred_requests')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
      .addColumn('kind', 'text', (c) => c.notNull()) // order | apply
      .addColumn('request_key', 'text', (c) => c.notNull())
      .addColumn('request_hash', 'text', (c) => c.notNull())
      .addColumn('input', 'text', (c) => c.notNull()) // JSON of the use case's input
      .addColumn('reference', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull()) // queued | done | failed
      .addColumn('error_code', 'text')
      .addColumn('error_message', 'text')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('lease_owner', 'text')
      .addColumn('locked_until', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('deferred_requests_key')
      .on('deferred_requests')
      .columns(['organisation_id', 'request_key'])
      .unique()
      .execute();
    await db.schema
      .createIndex('deferred_requests_reference')
      .on('deferred_requests')
      .columns(['reference'])
      .execute();
    await db.schema
      .createIndex('deferred_requests_due')
      .on('deferred_requests')
      .columns(['status', 'locked_until'])
      .execute();
    await db.schema
      .createIndex('deferred_requests_expiry')
      .on('deferred_requests')
      .columns(['expires_at'])
      .execute();
  },
});
