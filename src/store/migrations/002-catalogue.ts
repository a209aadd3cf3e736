import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// The catalogue:
// - bundles.search_text: the description lower-cased by the application (full Unicode case
//   folding), because SQLite's lower() and LIKE only fold ASCII. The description filter compares a
//   lower-cased pattern against it, the same way on both databases.
// - catalogue_state: one row whose version every catalogue write increments, so every server
//   process can tell in one cheap read whether what it has cached is still current.

export const catalogue = (dialect: DialectName): MigrationStep => {
  const counter = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('bundles')
        .addColumn('search_text', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema
        .createTable('catalogue_state')
        .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
        .addColumn('version', counter, (c) => c.notNull())
        .execute();
      await sql`insert into catalogue_state (id, version) values (1, 0)`.execute(db);
    },
  };
};
