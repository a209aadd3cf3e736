import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// Fewer writes per callback. Every usage or attach that causes a callback inserts a row into
// callback_events, and its delivery moves the row's status twice (claimed, then delivered): each
// write also rewrites the row's entries in every index that holds a changed column.
//
// - Three indexes no statement reads any more are dropped: `callback_events_org` and
//   `callback_events_org_status` (an organisation's callbacks by creation time: lists read
//   `callback_events_org_seq` and `callback_events_org_status_seq` since 023, and claims read
//   `callback_events_org_due`), and `callback_events_lease` (status, locked_until): the lapsed
//   leases are found among the rows being delivered, at most CALLBACK_ORG_CONCURRENCY per
//   organisation, through `callback_events_due` (status, next_attempt_at).
// - SQLite: an inserted row was updated twice more by triggers, once to copy its rowid into
//   `seq` (008) and once to number it within its organisation (`org_seq`, 023). One trigger now
//   sets both in one update, found by rowid. PostgreSQL already sets both before the insert.

export const callbackWrites = (dialect: DialectName): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    for (const name of [
      'callback_events_org',
      'callback_events_org_status',
      'callback_events_lease',
    ]) {
      await db.schema.dropIndex(name).ifExists().execute();
    }
    if (dialect !== 'sqlite') return;
    await sql`drop trigger if exists callback_events_seq`.execute(db);
    await sql`drop trigger if exists callback_events_numbered`.execute(db);
    await sql`
      create trigger callback_events_numbered after insert on callback_events
      begin
        insert into organisation_counts (organisation_id, name, value)
        values (new.organisation_id, 'callbacks', 1)
        on conflict (organisation_id, name) do update set value = value + excluded.value;
        insert into organisation_counts (organisation_id, name, value)
        values (new.organisation_id, 'callbacks:' || new.status, 1)
        on conflict (organisation_id, name) do update set value = value + excluded.value;
        update callback_events set
          seq = coalesce(new.seq, new.rowid),
          org_seq = (
            select value from organisation_counts
            where organisation_id = new.organisation_id and name = 'callbacks')
        where rowid = new.rowid;
      end`.execute(db);
  },
});
