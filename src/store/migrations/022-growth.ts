import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// Reads that cost what they return, not what the organisation ever held.
//
// Inventory: a partial index over the batches with units left, in the order GET /inventory
// answers and units are drawn (bundle, then oldest first). A used-up batch leaves the index, so
// an organisation's exhausted batches cost nothing to a read or a draw. Queries must spell the
// predicate `remaining > 0` literally (not as a bound parameter) for SQLite to choose the index.
//
// Lists paged by number: every order, eSIM and journal entry carries its row number within the organisation
// (`seq`, 1, 2, 3 … in the order rows were written; orders numbered per source, so the orders of
// GET /orders are numbered apart from the applies), and `organisation_counts` holds how many
// there are. A trigger numbers each new row and counts it in the inserting statement, so the
// count and the numbers move in the same transaction as the rows, whatever the code path that
// writes them. Page n is then a range of row numbers read through an index, at the same cost for
// the first page and the last, and the total is one row read. Nothing deletes orders or eSIMs, so
// the numbers stay dense.

const COUNTS = 'organisation_counts';

async function numberRows(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  // Existing rows: numbered in the order the lists showed them, then counted.
  await sql`
    update orders set seq = r.n from (
      select reference, row_number() over (
        partition by organisation_id, source order by created_at, reference) as n
      from orders) as r
    where r.reference = orders.reference`.execute(db);
  await sql`
    update esims set seq = r.n from (
      select iccid, row_number() over (partition by organisation_id order by created_at, iccid) as n
      from esims) as r
    where r.iccid = esims.iccid`.execute(db);
  await sql`
    update ledger_entries set seq = r.n from (
      select id, row_number() over (partition by organisation_id order by id) as n
      from ledger_entries) as r
    where r.id = ledger_entries.id`.execute(db);
  await sql`
    insert into organisation_counts (organisation_id, name, value)
    select organisation_id, 'orders:' || source, count(*) from orders group by organisation_id, source
    union all
    select organisation_id, 'esims', count(*) from esims group by organisation_id
    union all
    select organisation_id, 'ledger', count(*) from ledger_entries group by organisation_id`.execute(
    db,
  );

  if (dialect === 'sqlite') {
    for (const [table, key, name] of [
      ['orders', 'reference', sql`'orders:' || new.source`],
      ['esims', 'iccid', sql`'esims'`],
      ['ledger_entries', 'id', sql`'ledger'`],
    ] as const) {
      await sql`
        create trigger ${sql.raw(`${table}_numbered`)} after insert on ${sql.table(table)}
        begin
          insert into organisation_counts (organisation_id, name, value)
          values (new.organisation_id, ${name}, 1)
          on conflict (organisation_id, name) do update set value = value + 1;
          update ${sql.table(table)} set seq = (
            select value from organisation_counts
            where organisation_id = new.organisation_id and name = ${name})
          where ${sql.ref(key)} = new.${sql.ref(key)};
        end`.execute(db);
    }
    return;
  }
  // PostgreSQL numbers a row before it is written. An eSIM is inserted with ON CONFLICT DO
  // NOTHING (a random ICCID or matching id already taken): such a row is dropped here, before it
  // is counted, as the insert would drop it.
  for (const [table, name, taken] of [
    ['orders', `'orders:' || new.source`, ''],
    [
      'esims',
      `'esims'`,
      `if exists (select 1 from esims where iccid = new.iccid or matching_id = new.matching_id) then
            return null;
          end if;`,
    ],
    ['ledger_entries', `'ledger'`, ''],
  ] as const) {
    await sql
      .raw(
        `create function ${table}_numbered() returns trigger language plpgsql as $$
        begin
          ${taken}
          insert into organisation_counts as c (organisation_id, name, value)
          values (new.organisation_id, ${name}, 1)
          on conflict (organisation_id, name) do update set value = c.value + 1
          returning c.value into new.seq;
          return new;
        end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger ${table}_numbered before insert on ${table}
        for each row execute function ${table}_numbered()`,
      )
      .execute(db);
  }
}

export const growth = (dialect: DialectName): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('inventory_batches_left')
      .on('inventory_batches')
      .columns(['organisation_id', 'bundle_name', 'created_at', 'id'])
      .where(sql.ref('remaining'), '>', sql.lit(0))
      .execute();
    // Replaced: with `expiry` as a range it looked cheaper to SQLite's planner than the index
    // above, then sorted every unexpired batch of the bundle, used up or not. Whether an
    // organisation ever bought a bundle (holdsBundle) needs only the first two columns.
    await db.schema.dropIndex('inventory_org_bundle').execute();
    await db.schema
      .createIndex('inventory_batches_bundle')
      .on('inventory_batches')
      .columns(['organisation_id', 'bundle_name'])
      .execute();

    const count = dialect === 'postgres' ? 'bigint' : 'integer';
    await db.schema
      .createTable(COUNTS)
      .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('value', count, (c) => c.notNull())
      .addPrimaryKeyConstraint('organisation_counts_pk', ['organisation_id', 'name'])
      .execute();
    await db.schema.alterTable('orders').addColumn('seq', count).execute();
    await db.schema.alterTable('esims').addColumn('seq', count).execute();
    await db.schema.alterTable('ledger_entries').addColumn('seq', count).execute();
    await numberRows(db, dialect);
    await db.schema
      .createIndex('orders_org_seq')
      .on('orders')
      .columns(['organisation_id', 'source', 'seq'])
      .execute();
    await db.schema
      .createIndex('ledger_entries_org_seq')
      .on('ledger_entries')
      .columns(['organisation_id', 'seq'])
      .execute();
    await db.schema
      .createIndex('esims_org_seq')
      .on('esims')
      .columns(['organisation_id', 'seq'])
      .execute();
  },
});
