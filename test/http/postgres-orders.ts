import assert from 'node:assert/strict';
import pg from 'pg';
import type { DatabaseTarget } from '../../src/config.js';
import { FR_1MB } from '../esim-fixtures.js';
import type { TestApp } from '../harness.js';

// What the PostgreSQL failure tests of orders share (statement-timeout, commit-lost): a
// connection of the test's own to the app's database, the balance read through it, one order of
// one bundle, and the pause between two looks at pg_stat_activity.

/**
 * Between two looks at pg_stat_activity (as harness.ts eventually): a look costs the test and the
 * server a query, and the states looked for last far longer.
 */
export const ACTIVITY_POLL_MS = 25;

export const activityPause = (): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ACTIVITY_POLL_MS));

/** A connection of the test's own to the app's PostgreSQL database. */
export async function adminOf(target: DatabaseTarget): Promise<pg.Client> {
  assert.ok(target.kind === 'postgres');
  const admin = new pg.Client({ connectionString: target.url });
  await admin.connect();
  return admin;
}

/** The organisation's balance, read past the service. */
export async function balanceOf(admin: pg.Client, organisationId: string): Promise<number> {
  const { rows } = await admin.query<{ balance: string }>(
    'select balance from organisations where id = $1',
    [organisationId],
  );
  return Number(rows[0]?.balance);
}

/** POST /v2.1/orders: one unit of FR_1MB, with the Idempotency-Key when given. */
export function orderOne(t: TestApp, apiKey: string, idempotencyKey?: string) {
  return t.request(apiKey, {
    method: 'POST',
    url: '/v2.1/orders',
    ...(idempotencyKey === undefined ? {} : { headers: { 'idempotency-key': idempotencyKey } }),
    payload: {
      type: 'transaction',
      order: [{ type: 'bundle', item: FR_1MB.name, quantity: 1 }],
    },
  });
}

/**
 * A trigger `name` on `table` (`timing`: e.g. 'before insert', 'after update') that makes a write
 * wait while the test holds the advisory lock `lock`. Deferred, it is a constraint trigger run at
 * the COMMIT, which then waits in the server; `when` limits it to the rows a condition holds for.
 */
export async function holdWrites(
  admin: pg.Client,
  hold: {
    readonly name: string;
    readonly table: string;
    readonly timing: string;
    readonly lock: number;
    readonly deferred?: boolean;
    readonly when?: string;
  },
): Promise<void> {
  const { name, table, timing, lock, deferred = false, when } = hold;
  await admin.query(`
    create or replace function ${name}() returns trigger language plpgsql as $$
    begin
      perform pg_advisory_lock_shared(${lock});
      perform pg_advisory_unlock_shared(${lock});
      return ${deferred ? 'null' : 'new'};
    end $$`);
  await admin.query(`
    create ${deferred ? 'constraint ' : ''}trigger ${name} ${timing} on ${table}
    ${deferred ? 'deferrable initially deferred ' : ''}for each row
    ${when === undefined ? '' : `when (${when})`} execute function ${name}()`);
}
