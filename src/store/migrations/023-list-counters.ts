import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// The remaining lists and totals read by index, at the same cost for any organisation size.
//
// Deliveries (GET /callbacks, the portal's delivery log): every event carries its row number
// within the organisation (`org_seq`), numbered and counted ('callbacks') by a trigger as 022 does
// for orders, so a page by number is a range of row numbers, and a page after a neighbour's row
// number is read by key. A status filter reads (organisation_id, status, org_seq) by key; how
// many events are in each status ('callbacks:<status>') and how many are being retried
// ('callbacks:retrying': pending or being delivered after at least one attempt) are counters the
// triggers move with every insert and status change.
//
// eSIMs by profile status (the portal's Overview): 'esims:<profile status>' counts the eSIMs in
// the organisation's list (a deleted eSIM, whose row number is cleared, leaves its count).
//
// The portal's ICCID search matches a prefix: (organisation_id, iccid) reads it as a range. An
// eSIM's assignments are read in queue order through (iccid, queue_position, id).
//
// On PostgreSQL the status counters are moved once per statement from its transition tables,
// grouped by counter in a fixed order, so a statement that changes many rows (a worker's claim
// of a batch) takes each counter's lock once, in the same order as any other statement. A
// statement takes the status counters after the rows it changes: a transaction that changes
// rows after taking a status counter could wait on a row of one that waits for that counter.

/** True when a callback event (`r`) is being retried. */
const retrying = (r: string) => `(${r}.status in ('pending', 'delivering') and ${r}.attempts > 0)`;

async function countExisting(db: Kysely<unknown>): Promise<void> {
  await sql`
    update callback_events set org_seq = r.n from (
      select id, row_number() over (partition by organisation_id order by seq) as n
      from callback_events) as r
    where r.id = callback_events.id`.execute(db);
  await sql`
    insert into organisation_counts (organisation_id, name, value)
    select organisation_id, 'callbacks', count(*) from callback_events group by organisation_id
    union all
    select organisation_id, 'callbacks:' || status, count(*) from callback_events
    group by organisation_id, status
    union all
    select organisation_id, 'callbacks:retrying', count(*) from callback_events as e
    where ${sql.raw(retrying('e'))} group by organisation_id
    union all
    select organisation_id, 'esims:' || profile_status, count(*) from esims
    where seq is not null group by organisation_id, profile_status`.execute(db);
}

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  const bump = (org: string, name: string, by: string) => `
    insert into organisation_counts (organisation_id, name, value) values (${org}, ${name}, ${by})
    on conflict (organisation_id, name) do update set value = value + excluded.value;`;
  const statements = [
    `create trigger callback_events_numbered after insert on callback_events
     begin
       ${bump('new.organisation_id', `'callbacks'`, '1')}
       ${bump('new.organisation_id', `'callbacks:' || new.status`, '1')}
       update callback_events set org_seq = (
         select value from organisation_counts
         where organisation_id = new.organisation_id and name = 'callbacks')
       where id = new.id;
     end`,
    `create trigger callback_events_retrying_added after insert on callback_events
     when ${retrying('new')}
     begin ${bump('new.organisation_id', `'callbacks:retrying'`, '1')} end`,
    `create trigger callback_events_status_moved after update of status on callback_events
     when old.status <> new.status
     begin
       ${bump('old.organisation_id', `'callbacks:' || old.status`, '-1')}
       ${bump('new.organisation_id', `'callbacks:' || new.status`, '1')}
     end`,
    `create trigger callback_events_retrying_moved after update of status, attempts
     on callback_events when ${retrying('old')} <> ${retrying('new')}
     begin
       ${bump('new.organisation_id', `'callbacks:retrying'`, `case when ${retrying('new')} then 1 else -1 end`)}
     end`,
    // An eSIM joins its profile status's count when it is numbered (022's trigger sets seq right
    // after the insert), leaves it when deleted (seq cleared), and moves with its status.
    `create trigger esims_status_counted after update of seq, profile_status on esims
     when (old.seq is null) <> (new.seq is null) or old.profile_status <> new.profile_status
     begin
       ${bump('old.organisation_id', `'esims:' || old.profile_status`, 'case when old.seq is null then 0 else -1 end')}
       ${bump('new.organisation_id', `'esims:' || new.profile_status`, 'case when new.seq is null then 0 else 1 end')}
     end`,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}

async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  // Row numbers: before each insert, as 022.
  await sql
    .raw(
      `create function callback_events_numbered() returns trigger language plpgsql as $$
      begin
        insert into organisation_counts as c (organisation_id, name, value)
        values (new.organisation_id, 'callbacks', 1)
        on conflict (organisation_id, name) do update set value = c.value + 1
        returning c.value into new.org_seq;
        return new;
      end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger callback_events_numbered before insert on callback_events
      for each row execute function callback_events_numbered()`,
    )
    .execute(db);
  // Status counters: once per statement, the changes summed per counter, in counter order.
  const apply = (deltas: string) => `
    insert into organisation_counts as c (organisation_id, name, value)
    select organisation_id, name, sum(delta) from (${deltas}) as d
    group by organisation_id, name having sum(delta) <> 0
    order by organisation_id, name
    on conflict (organisation_id, name) do update set value = c.value + excluded.value;`;
  const events = (r: string, sign: string) => `
    select organisation_id, 'callbacks:' || status as name, ${sign} as delta from ${r}
    union all
    select organisation_id, 'callbacks:retrying', ${sign} from ${r} where ${retrying(r)}`;
  const esims = (r: string, sign: string) => `
    select organisation_id, 'esims:' || profile_status as name, ${sign} as delta from ${r}
    where seq is not null`;
  for (const [table, rows] of [
    ['callback_events', events],
    ['esims', esims],
  ] as const) {
    await sql
      .raw(
        `create function ${table}_added() returns trigger language plpgsql as $$
        begin ${apply(rows('n', '1'))} return null; end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create function ${table}_changed() returns trigger language plpgsql as $$
        begin ${apply(`${rows('n', '1')} union all ${rows('o', '-1')}`)} return null; end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger ${table}_added after insert on ${table}
        referencing new table as n for each statement execute function ${table}_added()`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger ${table}_changed after update on ${table}
        referencing old table as o new table as n
        for each statement execute function ${table}_changed()`,
      )
      .execute(db);
  }
}

export const listCounters = (dialect: DialectName): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    const count = dialect === 'postgres' ? 'bigint' : 'integer';
    await db.schema.alterTable('callback_events').addColumn('org_seq', count).execute();
    await countExisting(db);
    if (dialect === 'sqlite') await sqliteTriggers(db);
    else await postgresTriggers(db);
    await db.schema
      .createIndex('callback_events_org_seq')
      .on('callback_events')
      .columns(['organisation_id', 'org_seq'])
      .execute();
    await db.schema
      .createIndex('callback_events_org_status_seq')
      .on('callback_events')
      .columns(['organisation_id', 'status', 'org_seq'])
      .execute();
    // An eSIM's assignments in queue order, ties by id, with no sort (was: iccid, queue_position).
    await db.schema.dropIndex('assignments_iccid').execute();
    await db.schema
      .createIndex('assignments_iccid')
      .on('assignments')
      .columns(['iccid', 'queue_position', 'id'])
      .execute();
    await db.schema
      .createIndex('esims_org_iccid')
      .on('esims')
      .columns(['organisation_id', 'iccid'])
      .execute();
  },
});
