import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// SQLite: an order or journal entry numbered by its own insert. 022's triggers count a new row
// and then update it to set its row number (`seq`), after the insert: the row and both of the
// indexes that hold `seq` (orders_org_seq and orders_org_source_created; ledger_entries_org_seq)
// are written twice, about a fifth of what SQLite spends on an order placed into inventory.
//
// The statements of the order path (order-repository.ts, ledger-repository.ts) now give the
// number in the insert itself, read from the counter (`organisation_counts`) in the same
// statement: one writer at a time on SQLite, and the counter moves with each insert, so it is
// the number the trigger would have given. A row inserted with its number is only counted (the
// `_counted` triggers); one inserted without (any other code path, an older statement) is
// numbered and counted by the trigger as before. Either way the count and the numbers move in
// the inserting statement.
//
// PostgreSQL numbers a row in a BEFORE trigger (022), which sets it before the row is written:
// nothing to change there.

const NUMBERED = [
  ['orders', 'reference', `'orders:' || new.source`],
  ['ledger_entries', 'id', `'ledger'`],
] as const;

export const numberedInserts = (dialect: DialectName): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    if (dialect !== 'sqlite') return;
    for (const [table, key, name] of NUMBERED) {
      const count = `
        insert into organisation_counts (organisation_id, name, value)
        values (new.organisation_id, ${name}, 1)
        on conflict (organisation_id, name) do update set value = value + 1;`;
      await sql.raw(`drop trigger ${table}_numbered`).execute(db);
      await sql
        .raw(
          `create trigger ${table}_numbered after insert on "${table}" when new.seq is null
          begin
            ${count}
            update "${table}" set seq = (
              select value from organisation_counts
              where organisation_id = new.organisation_id and name = ${name})
            where "${key}" = new."${key}";
          end`,
        )
        .execute(db);
      await sql
        .raw(
          `create trigger ${table}_counted after insert on "${table}" when new.seq is not null
          begin ${count} end`,
        )
        .execute(db);
    }
  },
});
