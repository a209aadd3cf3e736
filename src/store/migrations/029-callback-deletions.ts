import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import { writeDeletions } from '../deletion-nodes.js';
import type { NumberRange } from '../deletion-nodes.js';
import type { MigrationStep } from './index.js';

// The deliveries list stays exact when old deliveries are deleted (CALLBACK_RETENTION_DAYS).
//
// Until now the retention deleted finished deliveries and left the counters as they were:
// 'callbacks' (the row numbers given out, 023) still counted them, so X-Total-Count overcounted
// and a page by number, a range of row numbers, came back short over the gap; and
// 'callbacks:<status>' still counted them in the status they were deleted in.
//
// Now a delivery keeps its row number for good, as an eSIM does since 027: the numbers deleted
// are counted in `callback_deletions`, the same Fenwick tree as `esim_deletions`, in the
// retention's own transaction (at most 41 nodes per number, the nodes a batch shares written
// once), and a page by number walks it (repositories/deletion-tree.ts); the listed total is
// 'callbacks' less the tree's node 2^40. A trigger takes a deleted delivery out of its status's
// count and out of 'callbacks:retrying' (a finished delivery is never in it; the trigger holds
// for any deletion).
//
// Existing data: the status counters are counted again from the rows, and the numbers deleted
// so far are counted into the tree, an organisation at a time, as runs: the gaps between its row
// numbers, read once in index order.
//
// An instance older than this one still deletes deliveries without counting them in the tree:
// stop instances older than 029 before starting this one (docs/operations.md, "Upgrading").

const retrying = (r: string) => `(${r}.status in ('pending', 'delivering') and ${r}.attempts > 0)`;

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  const bump = (name: string) => `
    insert into organisation_counts (organisation_id, name, value)
    values (old.organisation_id, ${name}, -1)
    on conflict (organisation_id, name) do update set value = value + excluded.value;`;
  await sql
    .raw(
      `create trigger callback_events_status_removed after delete on callback_events
       begin ${bump(`'callbacks:' || old.status`)} end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger callback_events_retrying_removed after delete on callback_events
       when ${retrying('old')}
       begin ${bump(`'callbacks:retrying'`)} end`,
    )
    .execute(db);
}

async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  // Once per statement, as 023's counters: the changes summed per counter, in counter order.
  await sql
    .raw(
      `create function callback_events_uncounted() returns trigger language plpgsql as $$
      begin
        insert into organisation_counts as c (organisation_id, name, value)
        select organisation_id, name, sum(delta) from (
          select organisation_id, 'callbacks:' || status as name, -1 as delta from o
          union all
          select organisation_id, 'callbacks:retrying', -1 from o where ${retrying('o')}
        ) as d
        group by organisation_id, name having sum(delta) <> 0
        order by organisation_id, name
        on conflict (organisation_id, name) do update set value = c.value + excluded.value;
        return null;
      end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger callback_events_uncounted after delete on callback_events
      referencing old table as o for each statement execute function callback_events_uncounted()`,
    )
    .execute(db);
}

async function recountStatuses(db: Kysely<unknown>): Promise<void> {
  await sql`delete from organisation_counts where name like 'callbacks:%'`.execute(db);
  await sql`
    insert into organisation_counts (organisation_id, name, value)
    select organisation_id, 'callbacks:' || status, count(*) from callback_events
    group by organisation_id, status
    union all
    select organisation_id, 'callbacks:retrying', count(*) from callback_events as e
    where ${sql.raw(retrying('e'))} group by organisation_id`.execute(db);
}

/** Gaps written per statement batch while counting earlier deletions. */
const GAPS_PER_WRITE = 10_000;

/**
 * The numbers 1..given of each organisation that no delivery holds any more, counted into the
 * tree as runs: the gaps between consecutive row numbers, read in index order by a window
 * function (one row per gap, not per number), and the run after the last one.
 */
async function countDeletedSoFar(db: Kysely<unknown>): Promise<void> {
  const { rows: given } = await sql<{ organisation_id: string; value: number | string }>`
    select organisation_id, value from organisation_counts where name = 'callbacks'`.execute(db);
  for (const { organisation_id: organisationId, value } of given) {
    const { rows: gaps } = await sql<{ previous: number | string; seq: number | string }>`
      select previous, seq from (
        select org_seq as seq, lag(org_seq, 1, 0) over (order by org_seq) as previous
        from callback_events where organisation_id = ${organisationId} and org_seq is not null
      ) as numbered where seq - previous > 1`.execute(db);
    const { rows: ends } = await sql<{ last: number | string | null }>`
      select max(org_seq) as last from callback_events
      where organisation_id = ${organisationId}`.execute(db);
    const runs: NumberRange[] = gaps.map((g) => [Number(g.previous) + 1, Number(g.seq) - 1]);
    const last = Number(ends[0]?.last ?? 0);
    if (last < Number(value)) runs.push([last + 1, Number(value)]);
    for (let i = 0; i < runs.length; i += GAPS_PER_WRITE) {
      await writeDeletions(
        db,
        'callback_deletions',
        organisationId,
        runs.slice(i, i + GAPS_PER_WRITE),
      );
    }
  }
}

export const callbackDeletions = (dialect: DialectName): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    const count = dialect === 'postgres' ? 'bigint' : 'integer';
    await db.schema
      .createTable('callback_deletions')
      .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
      .addColumn('node', count, (c) => c.notNull())
      .addColumn('deleted', count, (c) => c.notNull())
      .addPrimaryKeyConstraint('callback_deletions_pk', ['organisation_id', 'node'])
      .execute();
    if (dialect === 'sqlite') await sqliteTriggers(db);
    else await postgresTriggers(db);
    await recountStatuses(db);
    await countDeletedSoFar(db);
  },
});
