import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import { deletionNodes } from '../deletion-nodes.js';
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
// so far are counted into the tree, an organisation at a time, its numbers read once in index
// order.

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

/** The numbers 1..given of each organisation that no delivery holds any more. */
async function countDeletedSoFar(db: Kysely<unknown>): Promise<void> {
  const { rows: given } = await sql<{ organisation_id: string; value: number | string }>`
    select organisation_id, value from organisation_counts where name = 'callbacks'`.execute(db);
  for (const { organisation_id: organisationId, value } of given) {
    const { rows } = await sql<{ org_seq: number | string }>`
      select org_seq from callback_events
      where organisation_id = ${organisationId} and org_seq is not null
      order by organisation_id, org_seq`.execute(db);
    const missing: number[] = [];
    let expected = 1;
    for (const row of rows) {
      const seq = Number(row.org_seq);
      for (; expected < seq; expected += 1) missing.push(expected);
      expected = seq + 1;
    }
    for (; expected <= Number(value); expected += 1) missing.push(expected);
    const nodes = deletionNodes(missing);
    for (let i = 0; i < nodes.length; i += 500) {
      const values = nodes
        .slice(i, i + 500)
        .map(([node, deleted]) => sql`(${organisationId}, ${node}, ${deleted})`);
      await sql`insert into callback_deletions (organisation_id, node, deleted)
        values ${sql.join(values)}`.execute(db);
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
