import { sql } from 'kysely';
import type { Executor } from '../database.js';

// The figures /metrics reads from the database at scrape time. They describe the whole
// deployment, not one instance, so every instance reports the same values.

export interface BusinessFigures {
  readonly orders: readonly { status: string; currency: string; count: number; total: number }[];
  readonly money: readonly {
    kind: string;
    currency: string;
    balance: number;
    testCredit: number;
  }[];
  readonly topUps: readonly { status: string; count: number }[];
  readonly esims: readonly { profileStatus: string; count: number }[];
  readonly assignments: readonly { state: string; count: number }[];
  readonly callbackQueue: readonly { status: string; count: number; oldest: string | null }[];
  /** The oldest due, not yet done item of each worker (RFC 3339), or null when none is due. */
  readonly oldestDue: Readonly<
    Record<'callback-delivery' | 'lifecycle' | 'topup-reconcile', string | null>
  >;
}

const num = (value: unknown): number => Number(value ?? 0);
const text = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

function earliest(...values: (string | null)[]): string | null {
  const present = values.filter((v): v is string => v !== null);
  return present.length === 0 ? null : present.reduce((a, b) => (a < b ? a : b));
}

export async function readBusinessFigures(db: Executor, now: string): Promise<BusinessFigures> {
  const orders = await db
    .selectFrom('orders')
    .select(['status', 'currency'])
    .select((eb) => [eb.fn.countAll().as('n'), eb.fn.sum('total').as('total')])
    .groupBy(['status', 'currency'])
    .execute();
  const money = await db
    .selectFrom('ledger_entries as l')
    .innerJoin('organisations as o', 'o.id', 'l.organisation_id')
    .select(['l.kind', 'o.currency'])
    .select([
      sql<number>`sum(abs(l.balance_delta))`.as('balance'),
      sql<number>`sum(abs(l.test_credit_delta))`.as('test_credit'),
    ])
    .groupBy(['l.kind', 'o.currency'])
    .execute();
  const topUps = await db
    .selectFrom('topups')
    .select('status')
    .select((eb) => eb.fn.countAll().as('n'))
    .groupBy('status')
    .execute();
  const esims = await db
    .selectFrom('esims')
    .select('profile_status')
    .select((eb) => eb.fn.countAll().as('n'))
    .groupBy('profile_status')
    .execute();
  const assignments = await db
    .selectFrom('assignments')
    .select('state')
    .select((eb) => eb.fn.countAll().as('n'))
    .groupBy('state')
    .execute();
  const queue = await db
    .selectFrom('callback_events')
    .select('status')
    .select((eb) => [eb.fn.countAll().as('n'), eb.fn.min('created_at').as('oldest')])
    .where('status', 'in', ['pending', 'delivering'])
    .groupBy('status')
    .execute();
  const dueCallback = await db
    .selectFrom('callback_events')
    .select((eb) => eb.fn.min('next_attempt_at').as('due'))
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .executeTakeFirst();
  const dueProcessing = await db
    .selectFrom('assignments')
    .select((eb) => eb.fn.min('processing_due_at').as('due'))
    .where('state', '=', 'Processing')
    .where('processing_due_at', '<=', now)
    .executeTakeFirst();
  const dueEnded = await db
    .selectFrom('assignments')
    .select((eb) => eb.fn.min('end_time').as('due'))
    .where('state', 'in', ['Active', 'Depleted'])
    .where('end_time', '<=', now)
    .executeTakeFirst();
  const dueLapsed = await db
    .selectFrom('assignments')
    .select((eb) => eb.fn.min('valid_until').as('due'))
    .where('state', '=', 'Queued')
    .where('valid_until', '<=', now)
    .executeTakeFirst();
  const dueTopUp = await db
    .selectFrom('topups')
    .select((eb) => eb.fn.min('next_check_at').as('due'))
    .where('status', 'in', ['pending', 'unknown'])
    .where('next_check_at', '<=', now)
    .executeTakeFirst();
  return {
    orders: orders.map((r) => ({
      status: r.status,
      currency: r.currency,
      count: num(r.n),
      total: num(r.total),
    })),
    money: money.map((r) => ({
      kind: r.kind,
      currency: r.currency,
      balance: num(r.balance),
      testCredit: num(r.test_credit),
    })),
    topUps: topUps.map((r) => ({ status: r.status, count: num(r.n) })),
    esims: esims.map((r) => ({ profileStatus: r.profile_status, count: num(r.n) })),
    assignments: assignments.map((r) => ({ state: r.state, count: num(r.n) })),
    callbackQueue: queue.map((r) => ({
      status: r.status,
      count: num(r.n),
      oldest: text(r.oldest),
    })),
    oldestDue: {
      'callback-delivery': text(dueCallback?.due),
      lifecycle: earliest(text(dueProcessing?.due), text(dueEnded?.due), text(dueLapsed?.due)),
      'topup-reconcile': text(dueTopUp?.due),
    },
  };
}
