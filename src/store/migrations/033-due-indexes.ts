import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationStep } from './index.js';

// The lifecycle scheduler finds its due assignments through three indexes, each of which held
// every assignment ever made, in whatever state: (state, processing_due_at), (state, end_time),
// (state, valid_until). Only the assignments in the state each one serves are ever read, and an
// ended assignment (Expired, Revoked) is in none of those states again, so an organisation's
// history filled three indexes it never reads. They become partial indexes of the states they
// serve, keyed by the due time alone, the order the scheduler reads them in:
//
// - `assignments_processing_due` (processing_due_at), Processing only;
// - `assignments_ending` (end_time), Active or Depleted: both states in one range, read in
//   end_time order without the sort the two ranges of (state, end_time) needed;
// - `assignments_lapsing` (valid_until), Queued only.
//
// An assignment is in at most one of them, and in none once it has ended. Statements spell the
// state condition literally (not as a bound parameter), so SQLite's planner can match it. The
// scheduler needs no order among assignments due at the same moment: each one it moves leaves
// the index, and it reads past the ones it could not move (scheduler.ts).

const PARTIAL = [
  ['assignments_processing_due', 'processing_due_at', `state = 'Processing'`],
  ['assignments_ending', 'end_time', `state in ('Active', 'Depleted')`],
  ['assignments_lapsing', 'valid_until', `state = 'Queued'`],
] as const;

export const dueIndexes = (): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    for (const name of ['assignments_state', 'assignments_state_end', 'assignments_state_valid']) {
      await db.schema.dropIndex(name).ifExists().execute();
    }
    for (const [name, column, where] of PARTIAL) {
      await db.schema
        .createIndex(name)
        .on('assignments')
        .column(column)
        .where(sql.raw<boolean>(where))
        .execute();
    }
  },
});
