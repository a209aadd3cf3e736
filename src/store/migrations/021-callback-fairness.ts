import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// Fair delivery of usage callbacks across organisations. `callback_endpoints` holds one row per
// organisation that has had callbacks: how many of its events are open (pending or being
// delivered) and how many are claimed by a worker, both kept by a trigger in the transaction that
// moves the event, so the bound on open events and the cap on deliveries in flight are one row
// read; when a worker last took its turn (`served_at`, round-robin order: the partial index holds
// only organisations with open events); and the state of its endpoint: consecutive attempts that
// got no answer, backed off until, paused since.
//
// The (organisation_id, status, next_attempt_at) index serves the claim of one organisation's due
// events; the partial index on paused endpoints, the alert metric.

const OPEN = `('pending', 'delivering')`;

async function countTriggers(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect === 'sqlite') {
    const upsert = (open: string, flight: string, org: string): string => `
      insert into callback_endpoints (organisation_id, open_events, in_flight)
      values (${org}, ${open}, ${flight})
      on conflict (organisation_id) do update set
        open_events = open_events + excluded.open_events,
        in_flight = in_flight + excluded.in_flight;`;
    await sql
      .raw(
        `create trigger callback_events_opened after insert on callback_events
        when new.status in ${OPEN}
        begin ${upsert('1', `(new.status = 'delivering')`, 'new.organisation_id')} end`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger callback_events_moved after update of status on callback_events
        when old.status <> new.status
        begin ${upsert(
          `(new.status in ${OPEN}) - (old.status in ${OPEN})`,
          `(new.status = 'delivering') - (old.status = 'delivering')`,
          'new.organisation_id',
        )} end`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger callback_events_removed after delete on callback_events
        when old.status in ${OPEN}
        begin ${upsert('-1', `-(old.status = 'delivering')`, 'old.organisation_id')} end`,
      )
      .execute(db);
    return;
  }
  await sql
    .raw(
      `create function callback_endpoint_count() returns trigger language plpgsql as $$
      declare
        org text;
        open_delta integer := 0;
        flight_delta integer := 0;
      begin
        if tg_op in ('UPDATE', 'DELETE') then
          org := old.organisation_id;
          open_delta := open_delta - (old.status in ${OPEN})::integer;
          flight_delta := flight_delta - (old.status = 'delivering')::integer;
        end if;
        if tg_op in ('INSERT', 'UPDATE') then
          org := new.organisation_id;
          open_delta := open_delta + (new.status in ${OPEN})::integer;
          flight_delta := flight_delta + (new.status = 'delivering')::integer;
        end if;
        if open_delta <> 0 or flight_delta <> 0 then
          insert into callback_endpoints (organisation_id, open_events, in_flight)
          values (org, open_delta, flight_delta)
          on conflict (organisation_id) do update set
            open_events = callback_endpoints.open_events + excluded.open_events,
            in_flight = callback_endpoints.in_flight + excluded.in_flight;
        end if;
        return null;
      end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger callback_events_counted
      after insert or update of status or delete on callback_events
      for each row execute function callback_endpoint_count()`,
    )
    .execute(db);
}

export const callbackFairness = (dialect: DialectName): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('callback_endpoints')
      .addColumn('organisation_id', 'text', (c) => c.primaryKey())
      .addColumn('open_events', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('in_flight', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('served_at', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('backoff_until', 'text')
      .addColumn('paused_at', 'text')
      .execute();
    await sql`
      insert into callback_endpoints (organisation_id, open_events, in_flight)
      select organisation_id,
        sum(case when status in ('pending', 'delivering') then 1 else 0 end),
        sum(case when status = 'delivering' then 1 else 0 end)
      from callback_events group by organisation_id`.execute(db);
    await sql`
      create index callback_endpoints_turn on callback_endpoints (served_at)
      where open_events > 0`.execute(db);
    await sql`
      create index callback_endpoints_paused on callback_endpoints (paused_at)
      where paused_at is not null`.execute(db);
    await db.schema
      .createIndex('callback_events_org_due')
      .on('callback_events')
      .columns(['organisation_id', 'status', 'next_attempt_at'])
      .execute();
    await countTriggers(db, dialect);
  },
});
