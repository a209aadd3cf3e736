import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// What GET /esims filters by on v2.2 and later (filterBy customerRef, lastAction, actionDate,
// assignedDate), one row per eSIM in `esim_filters`, each value read through an index that
// starts with the organisation and ends with the eSIM's place in the list (created_at, iccid): a
// filtered page is a range of one index, in the order of the filtered value, then the order the
// eSIMs were issued, with no sort, whatever the organisation holds. The indexes are partial:
// an eSIM without the value, or deleted, is not in them (nothing to write for it, nothing to
// read past). Queries must spell `listed = 1` and `<column> is not null` literally (not as
// bound parameters) for SQLite to choose them.
//
// The values: customer_ref (esims.customer_ref, an empty one as none), last_action and
// action_date (name and time of the eSIM's newest history entry, action_id its id), assigned_date
// (when a bundle was first assigned to it). `listed` is 0 once the eSIM is deleted (its row
// number cleared): it leaves every filter as it leaves the list. Every eSIM has its row.
//
// Database triggers keep the rows with the writes that change them, whatever code path writes:
// an insert into esims, esim_history or assignments, an update of esims.customer_ref or
// esims.seq. On PostgreSQL they are deferred to the commit (and run in the order of the writes,
// an eSIM's insert before its history's): a row of
// esim_filters is then the last lock a transaction takes, so it cannot close a cycle with the
// eSIM's row or its assignments, which writers take in different orders (a usage report holds
// the eSIM's row, then moves its assignments; the scheduler moves one assignment, then writes
// its history). The newest history entry wins by id, so two transactions writing one eSIM's
// history leave the same row whichever commits first. On PostgreSQL the text columns compare
// byte-wise (collation "C"), as SQLite's do, so a prefix is a range of the index on either
// database.

const TABLE = 'esim_filters';

/** Each filter's column and its index. */
const INDEXES = {
  customer_ref: 'esim_filters_customer_ref',
  last_action: 'esim_filters_last_action',
  action_date: 'esim_filters_action_date',
  assigned_date: 'esim_filters_assigned_date',
} as const;

/** The columns of a new row taken from its eSIM (`e`): who owns it, its place, whether listed. */
const FROM_ESIM = `e.iccid, e.organisation_id, e.created_at,
  case when e.seq is null then 0 else 1 end`;

/**
 * What each trigger runs, `new` being the row written. Every eSIM has its row from its insert;
 * the others change one value of it, and only forward: a history entry older (by id) than the
 * newest, or an assignment later than the first, changes nothing.
 */
const STATEMENTS = {
  // Listed, being new (on SQLite its row number comes from a trigger that may not have run yet).
  issued: `
    insert into esim_filters (iccid, organisation_id, created_at, listed, customer_ref)
    values (new.iccid, new.organisation_id, new.created_at, 1, nullif(new.customer_ref, ''))
    on conflict (iccid) do nothing;`,
  history: `
    update esim_filters set last_action = new.name, action_date = new.created_at,
      action_id = new.id
    where iccid = new.iccid and (action_id is null or action_id < new.id);`,
  assignment: `
    update esim_filters set assigned_date = new.created_at
    where iccid = new.iccid and (assigned_date is null or assigned_date > new.created_at);`,
  reference: `
    update esim_filters set customer_ref = nullif(new.customer_ref, '') where iccid = new.iccid;`,
  unlisted: `update esim_filters set listed = 0 where iccid = new.iccid;`,
};

/** Where each trigger fires: table, event and the condition on the row. */
const TRIGGERS = [
  ['issued', 'insert', 'esims', ''],
  ['history', 'insert', 'esim_history', ''],
  ['assignment', 'insert', 'assignments', ''],
  [
    'reference',
    'update of customer_ref',
    'esims',
    'old.customer_ref is distinct from new.customer_ref',
  ],
  ['unlisted', 'update of seq', 'esims', 'old.seq is not null and new.seq is null'],
] as const;

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  for (const [name, event, table, when] of TRIGGERS) {
    // SQLite spells "is distinct from" as "is not".
    const condition = when.replace('is distinct from', 'is not');
    await sql
      .raw(
        `create trigger esim_filters_${name} after ${event} on ${table}
        ${condition === '' ? '' : `when ${condition}`}
        begin ${STATEMENTS[name]} end`,
      )
      .execute(db);
  }
}

async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  for (const [name, event, table, when] of TRIGGERS) {
    await sql
      .raw(
        `create function esim_filters_${name}() returns trigger language plpgsql as $$
        begin ${STATEMENTS[name]} return null; end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create constraint trigger esim_filters_${name} after ${event} on ${table}
        deferrable initially deferred for each row
        ${when === '' ? '' : `when (${when})`}
        execute function esim_filters_${name}()`,
      )
      .execute(db);
  }
}

/** Every eSIM's values as they are now (the existing rows, when the migration runs). */
const FILL = `
  insert into esim_filters (iccid, organisation_id, created_at, listed, customer_ref,
    last_action, action_date, action_id, assigned_date)
  select ${FROM_ESIM}, nullif(e.customer_ref, ''),
    (select h.name from esim_history h where h.iccid = e.iccid order by h.id desc limit 1),
    (select h.created_at from esim_history h where h.iccid = e.iccid order by h.id desc limit 1),
    (select max(h.id) from esim_history h where h.iccid = e.iccid),
    (select min(a.created_at) from assignments a where a.iccid = e.iccid)
  from esims e`;

export const esimFilters = (dialect: DialectName): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    const text = (c: ColumnDefinitionBuilder) =>
      dialect === 'postgres' ? c.modifyEnd(sql`collate "C"`) : c;
    const id = dialect === 'postgres' ? 'bigint' : 'integer';
    await db.schema
      .createTable(TABLE)
      .addColumn('iccid', 'text', (c) => text(c.primaryKey()))
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => text(c.notNull()))
      .addColumn('listed', 'integer', (c) => c.notNull())
      .addColumn('customer_ref', 'text', text)
      .addColumn('last_action', 'text', text)
      .addColumn('action_date', 'text', text)
      .addColumn('action_id', id)
      .addColumn('assigned_date', 'text', text)
      // SQLite: the rows in their primary key's tree, one tree less to write per change.
      .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
      .execute();
    // PostgreSQL: other instances may be writing while this runs (the migration is one
    // transaction). Until the triggers exist, a write committed after the fill's snapshot would
    // never reach esim_filters, so the tables the triggers watch are held still (reads go on)
    // from before the fill until the migration commits.
    if (dialect === 'postgres') {
      await sql`lock table esims, esim_history, assignments in share row exclusive mode`.execute(
        db,
      );
    }
    await sql.raw(FILL).execute(db);
    for (const [column, index] of Object.entries(INDEXES)) {
      await db.schema
        .createIndex(index)
        .on(TABLE)
        .columns(['organisation_id', column, 'created_at', 'iccid'])
        .where(sql.ref('listed'), '=', sql.lit(1))
        .where(sql.ref(column), 'is not', null)
        .execute();
    }
    if (dialect === 'sqlite') await sqliteTriggers(db);
    else await postgresTriggers(db);
  },
});
