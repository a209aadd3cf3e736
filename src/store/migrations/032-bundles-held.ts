import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// Whether an organisation ever bought a bundle (it may apply and check that bundle after its
// groups change) was read off `inventory_batches_bundle` (organisation_id, bundle_name), an
// index entry for every batch: 70 bytes per order to inventory on SQLite (bench/space.ts), for
// a question whose answer is one fact per organisation and bundle. `organisation_bundles` keeps
// that fact once, and the index is dropped.
//
// A trigger on inventory_batches writes the row with the organisation's first batch of the
// bundle, whatever code path inserts the batch; every later batch finds it there and writes
// nothing. On PostgreSQL it runs once per statement (a batch insert of many orders takes each
// pair once, in one order). Only an organisation's first purchase of a bundle can wait on
// another transaction's insert of the same pair: two instances buying it for the organisation
// at the same moment. An order locks its organisation's balance row after its batches, so those
// two can deadlock on that row; PostgreSQL ends one, and group commit runs its orders again.
// Batches are never deleted, so a pair is never either.
//
// The snapshot (`esim sim export` / `import`) does not carry the table: the import's batches
// write it again through the trigger.

const TABLE = 'organisation_bundles';

export const bundlesHeld = (dialect: DialectName): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable(TABLE)
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('bundle_name', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('organisation_bundles_pk', ['organisation_id', 'bundle_name'])
      .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
      .execute();
    // PostgreSQL: other instances may be writing while this runs (one transaction). Until the
    // trigger exists, a batch committed after the fill's snapshot would never reach the table,
    // so inventory_batches is held still (reads go on) from before the fill to the commit.
    if (dialect === 'postgres') {
      await sql`lock table inventory_batches in share row exclusive mode`.execute(db);
    }
    await sql`
      insert into organisation_bundles (organisation_id, bundle_name)
      select distinct organisation_id, bundle_name from inventory_batches`.execute(db);
    if (dialect === 'sqlite') {
      await sql`
        create trigger inventory_batches_held after insert on inventory_batches
        begin
          insert or ignore into organisation_bundles (organisation_id, bundle_name)
          values (new.organisation_id, new.bundle_name);
        end`.execute(db);
    } else {
      await sql`
        create function inventory_batches_held() returns trigger language plpgsql as $$
        begin
          insert into organisation_bundles (organisation_id, bundle_name)
          select distinct organisation_id, bundle_name from n
          order by organisation_id, bundle_name
          on conflict do nothing;
          return null;
        end $$`.execute(db);
      await sql`
        create trigger inventory_batches_held after insert on inventory_batches
        referencing new table as n for each statement
        execute function inventory_batches_held()`.execute(db);
    }
    await db.schema.dropIndex('inventory_batches_bundle').ifExists().execute();
  },
});
