import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// Assignments by state on PostgreSQL without counting the table at every scrape. 034 left
// PostgreSQL counting `assignments` for /metrics (a parallel scan of every assignment ever made:
// 110 ms of database time at a million), because counters moved in the writing transaction
// would be rows that every state change locks until its commit, taken in no fixed order by
// transactions that change several assignments.
//
// Now each write of an assignment adds what it changed to `count_deltas`: an insert one row
// (+1 to its state), a state change two (-1 to the state left, +1 to the state entered), a
// delete one (-1). Insert-only, so no row is locked, nothing waits and nothing can deadlock. A
// fold (count-repository.ts, foldCountDeltas) moves the deltas into the organisations'
// 'assignments:<state>' counters in `organisation_counts`, in one statement, one fold at a time,
// and /metrics reads the counters plus the deltas not folded yet: a scrape costs the
// organisations and the changes since the last fold, not the history. The triggers are row
// triggers with a condition tested before any function is called, so the many updates that
// change no state (usage, alerts) cost nothing; one order's assignment costs one small insert.
//
// SQLite keeps 034's counters, moved in the writing transaction (one writer at a time).
//
// Also, on both databases, `restore_state`: a number every snapshot restore increments.

export const COUNT_DELTAS = 'count_deltas';

/** The assignment counters as the rows there now say, by organisation and state. */
export const ASSIGNMENTS_BY_STATE = `select organisation_id, 'assignments:' || state as name,
  count(*) as value from assignments group by organisation_id, state`;

async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  const delta = (row: string, by: string) =>
    `(${row}.organisation_id, 'assignments:' || ${row}.state, ${by})`;
  for (const [fn, event, condition, values] of [
    ['assignments_counted', 'insert', '', delta('new', '1')],
    [
      'assignments_state_moved',
      'update of organisation_id, state',
      `when (old.state is distinct from new.state
        or old.organisation_id is distinct from new.organisation_id)`,
      `${delta('old', '-1')}, ${delta('new', '1')}`,
    ],
    ['assignments_uncounted', 'delete', '', delta('old', '-1')],
  ] as const) {
    await sql
      .raw(
        `create function ${fn}() returns trigger language plpgsql as $$
        begin
          insert into count_deltas (organisation_id, name, value) values ${values};
          return null;
        end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger ${fn} after ${event} on assignments
        for each row ${condition} execute function ${fn}()`,
      )
      .execute(db);
  }
}

export const countDeltas = (dialect: DialectName): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    // Both databases: how many snapshots were restored here. /metrics keeps running totals of
    // the orders and money it has read, which a restore replaces beneath it; a change of this
    // number, read with the totals, makes it start again (metrics-repository.ts, readTally).
    await db.schema
      .createTable('restore_state')
      .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
      .addColumn('version', 'integer', (c) => c.notNull())
      .execute();
    await sql`insert into restore_state (id, version) values (1, 0)`.execute(db);
    if (dialect !== 'postgres') return;
    await db.schema
      .createTable(COUNT_DELTAS)
      // A key, so that the fold's delete can be replicated (logical replication needs one).
      .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('value', 'bigint', (c) => c.notNull())
      .execute();
    // The counters are counted from the rows, and the triggers exist, before any assignment
    // written by another instance meanwhile could be missed: writers wait from here to the
    // commit (reads go on).
    await sql`lock table assignments in share row exclusive mode`.execute(db);
    // Counters of assignments a restore brought in before 035 (copied from the snapshot, unread
    // while /metrics counted the table) go: a state with no assignment left must read 0.
    await sql`delete from organisation_counts where name like 'assignments:%'`.execute(db);
    await sql
      .raw(
        `insert into organisation_counts (organisation_id, name, value)
        select organisation_id, name, value from (${ASSIGNMENTS_BY_STATE}) as c`,
      )
      .execute(db);
    await postgresTriggers(db);
  },
});
