import { sql } from 'kysely';
import type { Db, Executor } from '../database.js';
import { readSnapshot } from '../read-snapshot.js';
import type { NumberedMarks } from './numbered-tally.js';
import { readNumberedTally } from './numbered-tally.js';

// The figures /metrics reads from the database at scrape time. They describe the whole
// deployment, not one instance, so every instance reports the same values.

export interface OrderTotal {
  readonly status: string;
  readonly currency: string;
  readonly count: number;
  readonly total: number;
}

export interface MoneyTotal {
  readonly kind: string;
  readonly currency: string;
  readonly balance: number;
  readonly testCredit: number;
}

/**
 * Where a running tally of orders and ledger entries stands: on SQLite the highest row read of
 * each table (rowid / ledger id); on PostgreSQL the highest row numbers read per organisation
 * (numbered-tally.ts); undefined before the first read.
 */
export interface TallyMarks {
  readonly orders: number;
  readonly ledger: number;
  readonly numbered?: NumberedMarks;
  /** How many snapshots had been restored (035's restore_state): another number starts afresh. */
  readonly restores?: number;
}

/** The number of snapshots restored into this database (restore_state, 035). */
async function restoreCount(db: Executor): Promise<number> {
  const row = await db.selectFrom('restore_state').select('version').executeTakeFirst();
  return num(row?.version);
}

export interface Tally {
  readonly orders: readonly OrderTotal[];
  readonly money: readonly MoneyTotal[];
  readonly marks: TallyMarks;
}

/**
 * Orders and money moved by type and currency. Orders and ledger entries are only ever added,
 * so on SQLite, where rows become visible in id order (one writer at a time), only the rows
 * after `since` are read and the caller adds them to its tally: a scrape then costs the new rows,
 * not the whole history, which matters because SQLite reads block the process. A table whose
 * highest id went below the mark (the simulator's reset) makes the caller start afresh
 * (`fresh: true`). PostgreSQL assigns ids before commit, so a later id can become visible first:
 * it reads by the organisations' row numbers instead, which become visible in order
 * (numbered-tally.ts).
 */
export async function readTally(
  db: Db,
  dialect: 'sqlite' | 'postgres',
  since: TallyMarks | undefined,
): Promise<Tally & { fresh: boolean }> {
  if (dialect === 'postgres') {
    // One snapshot for the restore count, the check and the reads: a restore committing between
    // them cannot mix its rows with the tally's.
    return readSnapshot(db, async (trx) => {
      const restores = await restoreCount(trx);
      const read = await readNumberedTally(
        trx,
        since?.restores === restores ? since.numbered : undefined,
      );
      return { ...read, marks: { orders: 0, ledger: 0, numbered: read.marks, restores } };
    });
  }
  const restores = await restoreCount(db);
  let from = since?.restores === restores ? since : { orders: 0, ledger: 0 };
  if (since !== undefined && from === since) {
    const top = await sql<{ orders: number | null; ledger: number | null }>`
      select (select max(rowid) from orders) as orders,
             (select max(id) from ledger_entries) as ledger`.execute(db);
    const row = top.rows[0];
    if (num(row?.orders) < since.orders || num(row?.ledger) < since.ledger) {
      from = { orders: 0, ledger: 0 };
    }
  }
  const orders = await db
    .selectFrom('orders')
    .select(['status', 'currency'])
    .select((eb) => [eb.fn.countAll().as('n'), eb.fn.sum('total').as('total')])
    .select(sql<number>`max(rowid)`.as('mark'))
    .where(sql<boolean>`rowid > ${from.orders}`)
    .groupBy(['status', 'currency'])
    .execute();
  const money = await db
    .selectFrom('ledger_entries as l')
    .innerJoin('organisations as o', 'o.id', 'l.organisation_id')
    .select(['l.kind', 'o.currency'])
    .select([
      sql<number>`sum(abs(l.balance_delta))`.as('balance'),
      sql<number>`sum(abs(l.test_credit_delta))`.as('test_credit'),
      sql<number>`max(l.id)`.as('mark'),
    ])
    .where('l.id', '>', from.ledger)
    .groupBy(['l.kind', 'o.currency'])
    .execute();
  return {
    fresh: from.orders === 0 && from.ledger === 0,
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
    marks: {
      orders: Math.max(from.orders, ...orders.map((r) => num(r.mark))),
      ledger: Math.max(from.ledger, ...money.map((r) => num(r.mark))),
      restores,
    },
  };
}

export interface BusinessFigures {
  readonly topUps: readonly { status: string; count: number }[];
  readonly esims: readonly { profileStatus: string; count: number }[];
  readonly assignments: readonly { state: string; count: number }[];
  readonly callbackQueue: readonly { status: string; count: number; oldest: string | null }[];
  /** Organisations whose callback endpoint is paused for want of answers. */
  readonly pausedEndpoints: number;
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

export async function readBusinessFigures(
  db: Executor,
  dialect: 'sqlite' | 'postgres',
  now: string,
): Promise<BusinessFigures> {
  const topUps = await db
    .selectFrom('topups')
    .select('status')
    .select((eb) => eb.fn.countAll().as('n'))
    .groupBy('status')
    .execute();
  // Counters kept with the rows (023, 034), summed over the organisations: a scrape costs the
  // number of organisations, not the eSIMs and assignments they ever had. On PostgreSQL the
  // assignment counters also have changes not folded in yet (035-count-deltas), read in the same
  // statement, so a fold committing meanwhile is seen either wholly or not at all.
  const counted = async (prefix: 'esims:' | 'assignments:', deltas: boolean) =>
    (
      await db
        .selectFrom((eb) => {
          const kept = eb
            .selectFrom('organisation_counts')
            .select(['name', 'value'])
            .where('name', 'like', `${prefix}%`);
          const due = eb
            .selectFrom('count_deltas')
            .select(['name', 'value'])
            .where('name', 'like', `${prefix}%`);
          return (deltas ? kept.unionAll(due) : kept).as('c');
        })
        .select('name')
        .select((eb) => eb.fn.sum<number | string>('value').as('n'))
        .groupBy('name')
        .execute()
    )
      .map((r) => ({ key: r.name.slice(prefix.length), count: num(r.n) }))
      .filter((r) => r.count !== 0);
  const esims = await counted('esims:', false);
  const assignments = await counted('assignments:', dialect === 'postgres');
  const queue = await db
    .selectFrom('callback_events')
    .select('status')
    .select((eb) => [eb.fn.countAll().as('n'), eb.fn.min('created_at').as('oldest')])
    .where('status', 'in', ['pending', 'delivering'])
    .groupBy('status')
    .execute();
  const paused = await db
    .selectFrom('callback_endpoints')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('paused_at', 'is not', null)
    .executeTakeFirst();
  const dueCallback = await db
    .selectFrom('callback_events')
    .select((eb) => eb.fn.min('next_attempt_at').as('due'))
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .executeTakeFirst();
  const dueProcessing = await db
    .selectFrom('assignments')
    .select((eb) => eb.fn.min('processing_due_at').as('due'))
    .where(sql<boolean>`state = 'Processing'`)
    .where('processing_due_at', '<=', now)
    .executeTakeFirst();
  const dueEnded = await db
    .selectFrom('assignments')
    .select((eb) => eb.fn.min('end_time').as('due'))
    .where(sql<boolean>`state in ('Active', 'Depleted')`)
    .where('end_time', '<=', now)
    .executeTakeFirst();
  const dueLapsed = await db
    .selectFrom('assignments')
    .select((eb) => eb.fn.min('valid_until').as('due'))
    .where(sql<boolean>`state = 'Queued'`)
    .where('valid_until', '<=', now)
    .executeTakeFirst();
  const dueTopUp = await db
    .selectFrom('topups')
    .select((eb) => eb.fn.min('next_check_at').as('due'))
    .where('status', 'in', ['pending', 'unknown'])
    .where('next_check_at', '<=', now)
    .executeTakeFirst();
  return {
    topUps: topUps.map((r) => ({ status: r.status, count: num(r.n) })),
    esims: esims.map((r) => ({ profileStatus: r.key, count: r.count })),
    assignments: assignments.map((r) => ({ state: r.key, count: r.count })),
    callbackQueue: queue.map((r) => ({
      status: r.status,
      count: num(r.n),
      oldest: text(r.oldest),
    })),
    pausedEndpoints: num(paused?.n),
    oldestDue: {
      'callback-delivery': text(dueCallback?.due),
      lifecycle: earliest(text(dueProcessing?.due), text(dueEnded?.due), text(dueLapsed?.due)),
      'topup-reconcile': text(dueTopUp?.due),
    },
  };
}
