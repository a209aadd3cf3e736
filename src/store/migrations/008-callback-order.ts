import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// Callbacks are delivered in order per eSIM: an event waits while an earlier event of the same
// eSIM is pending or being delivered. `seq` is the order of insertion, across the table:
// a sequence on PostgreSQL (bigserial), the rowid on SQLite (a trigger copies it, since SQLite
// cannot add an autoincrement column to an existing table). Existing rows keep their insertion
// order. The (iccid, status, seq) index answers "is an earlier event of this eSIM still open?".

export const callbackOrder = (dialect: DialectName): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    if (dialect === 'postgres') {
      await sql`alter table callback_events add column seq bigserial not null`.execute(db);
    } else {
      await sql`alter table callback_events add column seq integer`.execute(db);
      await sql`update callback_events set seq = rowid`.execute(db);
      await sql`
        create trigger callback_events_seq after insert on callback_events
        when new.seq is null
        begin
          update callback_events set seq = new.rowid where rowid = new.rowid;
        end`.execute(db);
    }
    await db.schema
      .createIndex('callback_events_iccid_open')
      .on('callback_events')
      .columns(['iccid', 'status', 'seq'])
      .execute();
  },
});
