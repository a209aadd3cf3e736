import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// /metrics reported eSIMs by profile status and bundle assignments by state by counting every
// row at each scrape: on SQLite a read of the whole table (or of an index kept for it alone) that
// held the event loop for as long, and grew with every eSIM and assignment ever made. Both are now
// counters kept with the rows, per organisation, in `organisation_counts`, and /metrics sums them
// over the organisations:
//
// - 'esims:<profile status>' (023) already counts the eSIMs in each organisation's list; the
//   index `esims_profile_status`, kept for /metrics alone, is dropped.
// - 'assignments:<state>' counts assignments by state: an insert adds one to its state, a state
//   change moves one between states, a delete takes one away. Counted here from the rows.
//
// On PostgreSQL the counters move once per statement from its transition tables, grouped by
// counter in a fixed order, after the rows the statement changed, as 023's do; the lifecycle
// scheduler moves one assignment per transaction, and a usage report the assignments of one
// eSIM, whose row it holds, so two transactions never take an organisation's counters in
// opposite orders while waiting for each other's rows.

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  const bump = (org: string, name: string, by: string) => `
    insert into organisation_counts (organisation_id, name, value) values (${org}, ${name}, ${by})
    on conflict (organisation_id, name) do update set value = value + excluded.value;`;
  for (const statement of [
    `create trigger assignments_counted after insert on assignments
     begin ${bump('new.organisation_id', `'assignments:' || new.state`, '1')} end`,
    `create trigger assignments_state_moved after update of state on assignments
     when old.state <> new.state
     begin
       ${bump('old.organisation_id', `'assignments:' || old.state`, '-1')}
       ${bump('new.organisation_id', `'assignments:' || new.state`, '1')}
     end`,
    `create trigger assignments_uncounted after delete on assignments
     begin ${bump('old.organisation_id', `'assignments:' || old.state`, '-1')} end`,
  ]) {
    await sql.raw(statement).execute(db);
  }
}

async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  const apply = (deltas: string) => `
    insert into organisation_counts as c (organisation_id, name, value)
    select organisation_id, name, sum(delta) from (${deltas}) as d
    group by organisation_id, name having sum(delta) <> 0
    order by organisation_id, name
    on conflict (organisation_id, name) do update set value = c.value + excluded.value;`;
  const rows = (r: string, sign: string) =>
    `select organisation_id, 'assignments:' || state as name, ${sign} as delta from ${r}`;
  for (const [event, fn, referencing, deltas] of [
    ['insert', 'assignments_counted', 'new table as n', rows('n', '1')],
    [
      'update',
      'assignments_state_moved',
      'old table as o new table as n',
      `${rows('n', '1')} union all ${rows('o', '-1')}`,
    ],
    ['delete', 'assignments_uncounted', 'old table as o', rows('o', '-1')],
  ] as const) {
    await sql
      .raw(
        `create function ${fn}() returns trigger language plpgsql as $$
        begin ${apply(deltas)} return null; end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger ${fn} after ${event} on assignments
        referencing ${referencing} for each statement execute function ${fn}()`,
      )
      .execute(db);
  }
}

export const assignmentCounts = (dialect: DialectName): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    await sql`
      insert into organisation_counts (organisation_id, name, value)
      select organisation_id, 'assignments:' || state, count(*) from assignments
      group by organisation_id, state`.execute(db);
    if (dialect === 'sqlite') await sqliteTriggers(db);
    else await postgresTriggers(db);
    await db.schema.dropIndex('esims_profile_status').ifExists().execute();
  },
});
