import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// The organisation portal: users' password hashes, server-side sessions (so every instance
// sees them), one-time set-password links, the sign-in throttle per account and per address,
// and the mail outbox of simulator mode. Secrets (session ids, link tokens) are stored only as
// SHA-256 hashes.

export const portal = (dialect: DialectName): MigrationStep => {
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('portal_credentials')
        .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id'))
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('changed_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('portal_sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('organisation_id', 'text', (c) => c.notNull())
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_seen_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('portal_sessions_user')
        .on('portal_sessions')
        .columns(['user_id'])
        .execute();
      await db.schema
        .createTable('portal_tokens')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('purpose', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('used_at', 'text')
        .execute();
      await db.schema
        .createIndex('portal_tokens_user')
        .on('portal_tokens')
        .columns(['user_id'])
        .execute();
      await db.schema
        .createTable('portal_sign_in_failures')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('failures', 'integer', (c) => c.notNull())
        .addColumn('window_started_at', 'text', (c) => c.notNull())
        .addColumn('locked_until', 'text')
        .execute();
      await db.schema
        .createTable('mail_outbox')
        .addColumn('id', serial, (c) =>
          c.primaryKey().$call((b) => (dialect === 'sqlite' ? b.autoIncrement() : b)),
        )
        .addColumn('at', 'text', (c) => c.notNull())
        .addColumn('to_address', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .execute();
      // Sign-in looks users up by email address, whatever its case.
      await db.schema
        .createIndex('users_email_lower')
        .on('users')
        .expression(sql`lower(email_address)`)
        .execute();
    },
  };
};
