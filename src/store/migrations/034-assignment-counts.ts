import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// /metrics reported eSIMs by profile status and bundle assignments by state by counting every
// row at each scrape. On SQLite that read holds the event loop for as long as it takes, and it
// grew with every eSIM and assignment ever made (92 ms at a million of each). Now:
//
// - eSIMs: 'esims:<profile status>' (023) already counts the eSIMs in each organisation's list,
//   on both databases; /metrics sums it, and `esims_profile_status`, kept for /metrics alone, is
//   dropped.
// - Assignments, SQLite: 'assignments:<state>' counts them by state per organisation, moved by
//   triggers in the writing transaction (an insert adds one, a state change moves one, a delete
//   takes one away), counted here from the rows. One writer at a time: no lock order to keep.
// - Assignments, PostgreSQL: still counted from the table at scrape time, in the database and
//   off the event loop, as the order and money totals are. Counters there would be rows that
//   every state change locks until its commit, and the transactions that change states take
//   them in no fixed order (a usage report may queue one assignment and then activate another,
//   while another eSIM's report activates first): they could deadlock, and neither usage
//   reports nor the scheduler run a transaction again after one.

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  const bump = (org: string, name: string, by: string) => `
    insert into organisation_counts (organisation_id, name, value) values (${org}, ${name}, ${by})
    on conflict (organisation_id, name) do update set value = value + excluded.value;`;
  for (const statement of [
    `create trigger assignments_counted after insert on assignments
     begin ${bump('new.organisation_id', `'assignments:' || new.state`, '1')} end`,
    `create trigger assignments_state_moved after update of organisation_id, state on assignments
     when old.state <> new.state or old.organisation_id <> new.organisation_id
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

export const assignmentCounts = (dialect: DialectName): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    if (dialect === 'sqlite') {
      // SQLite runs the migration holding the write lock: nothing is written meanwhile.
      await sql`
        insert into organisation_counts (organisation_id, name, value)
        select organisation_id, 'assignments:' || state, count(*) from assignments
        group by organisation_id, state`.execute(db);
      await sqliteTriggers(db);
    }
    await db.schema.dropIndex('esims_profile_status').ifExists().execute();
  },
});
