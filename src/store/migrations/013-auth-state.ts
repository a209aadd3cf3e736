import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// auth_state: one row whose version every write to what authentication reads increments (an
// organisation's row, its API key, a rotated-out key's grace period), in the same transaction.
// Each server process keeps the organisations it authenticated in memory and re-reads this one
// number at most every API_KEY_CACHE_MS, so a change made elsewhere reaches it within that time.

export const authState = (dialect: DialectName): MigrationStep => {
  const counter = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('auth_state')
        .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
        .addColumn('version', counter, (c) => c.notNull())
        .execute();
      await sql`insert into auth_state (id, version) values (1, 0)`.execute(db);
    },
  };
};
