import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// Deleting an eSIM costs the same however many eSIMs the organisation issued after it.
//
// Until now a deletion renumbered every later eSIM (`seq - 1`) so that the row numbers of 022
// stayed dense and a page by number was a plain range of them: one deletion of an old eSIM
// rewrote up to every row of the organisation, in the request's transaction. Now row numbers
// never change: a deleted eSIM's is cleared (it leaves `esims_org_seq`, as before) and the
// number is not given out again, and `organisation_counts` 'esims' counts the numbers given out
// (issued eSIMs, deleted ones included) instead of the eSIMs listed.
//
// Which numbers are deleted is kept in `esim_deletions`, a Fenwick (binary indexed) tree over an
// organisation's row numbers: node n holds how many numbers in (n - lowbit(n), n] were deleted,
// a row only for nodes some deletion reached. A deletion adds one to the nodes above its number
// (n, n + lowbit(n), … up to 2^40): at most 41 rows, one statement. Node 2^40 covers every
// number, so it is how many eSIMs were deleted; the listed total is 'esims' less it. A page by
// number walks down the tree from the largest power of two within the numbers given out, one key
// read per level (about 17 at 100,000 eSIMs, 20 at a million), to the row number of the page's
// first eSIM, then reads the page's rows from there through `esims_org_seq`. Both costs are
// bounded by the tree's 41 levels, whatever the organisation's number of eSIMs or deletions.
//
// Rejected: a table of the deleted numbers, a page's offset turned into a number by counting the
// deletions before it until the range stops moving. Counting by index costs every deletion before
// the page, so reads would grow with the organisation's deletions, and a run of consecutive
// deleted numbers takes one round per deleted eSIM. Counts per fixed bucket of numbers add up
// every bucket below the page: the same growth, slower.
//
// Existing data needs nothing: earlier deletions renumbered the later eSIMs and lowered 'esims',
// so every organisation's numbers are 1..'esims' with no deletion among them, which is an empty
// tree.
//
// Versions before this one renumber on deletion; one still running beside this one would shift
// numbers the tree has counted. The trigger `esims_seq_fixed` refuses any change of a row number
// once given (clearing it stays allowed), so such a deletion fails instead of corrupting the
// list (docs/operations.md, "Upgrading").

const REFUSAL = "an eSIM's row number never changes (migration 027): stop instances older than it";

export const esimDeletions = (dialect: DialectName): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    const count = dialect === 'postgres' ? 'bigint' : 'integer';
    await db.schema
      .createTable('esim_deletions')
      .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
      .addColumn('node', count, (c) => c.notNull())
      .addColumn('deleted', count, (c) => c.notNull())
      .addPrimaryKeyConstraint('esim_deletions_pk', ['organisation_id', 'node'])
      .execute();
    const changed = 'old.seq is not null and new.seq is not null and new.seq <> old.seq';
    if (dialect === 'sqlite') {
      await sql
        .raw(
          `create trigger esims_seq_fixed before update of seq on esims when ${changed}
           begin select raise(abort, '${REFUSAL.replace(/'/g, "''")}'); end`,
        )
        .execute(db);
    } else {
      await sql
        .raw(
          `create function esims_seq_fixed() returns trigger language plpgsql as $$
           begin raise exception '${REFUSAL.replace(/'/g, "''")}'; end $$`,
        )
        .execute(db);
      await sql
        .raw(
          `create trigger esims_seq_fixed before update of seq on esims for each row
           when (${changed}) execute function esims_seq_fixed()`,
        )
        .execute(db);
    }
  },
});
