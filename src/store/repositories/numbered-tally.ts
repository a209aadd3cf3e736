import { sql } from 'kysely';
import type { Executor } from '../database.js';

// PostgreSQL's running tally of orders and money for /metrics, read by row number. PostgreSQL
// assigns ids before commit, so a row with a later id can become visible before an earlier
// one, and a mark by id could skip a row for good. Row numbers do not have that hole: an order's
// number within its organisation and source, and a journal entry's within its organisation
// (022-growth), are taken from a counter row that stays locked until the transaction commits,
// so the next number is only given once the row before it is committed (or rolled back, and its
// number given again). Numbers therefore become visible in order, and a scrape reads only the
// rows numbered above what the last one read, through (organisation_id, source, seq) and
// (organisation_id, seq): its cost is the organisations and the rows added, not the history.
// (`offset 0` keeps each subquery whole, and `order by seq` makes the index by row number the
// one to read, so the planner reads an organisation's rows from its mark on, rather than all of
// them, filtered.)

/** Orders by status and currency, as metrics-repository.ts's OrderTotal. */
interface OrderTotal {
  readonly status: string;
  readonly currency: string;
  readonly count: number;
  readonly total: number;
}

/** Money moved by journal kind and currency, as metrics-repository.ts's MoneyTotal. */
interface MoneyTotal {
  readonly kind: string;
  readonly currency: string;
  readonly balance: number;
  readonly testCredit: number;
}

/** The highest row number read, by organisation and order source, and by organisation's journal. */
export interface NumberedMarks {
  /** Keyed `${organisation_id} ${source}`. */
  readonly orders: Readonly<Record<string, number>>;
  readonly ledger: Readonly<Record<string, number>>;
}

export interface NumberedTally {
  readonly orders: readonly OrderTotal[];
  readonly money: readonly MoneyTotal[];
  readonly marks: NumberedMarks;
  /** The totals start again from nothing (first read, or numbers went back: a restore). */
  readonly fresh: boolean;
}

const num = (value: unknown): number => Number(value ?? 0);

const EMPTY: NumberedMarks = { orders: {}, ledger: {} };

/**
 * The order marks as (organisation, source, mark), from their `${organisation_id} ${source}`
 * keys: split at the last space (a source is one word; an organisation id is not read for one).
 */
function orderMarksOf(marks: NumberedMarks): { org: string; source: string; mark: number }[] {
  return Object.entries(marks.orders).map(([key, mark]) => {
    const at = key.lastIndexOf(' ');
    return { org: key.slice(0, at), source: key.slice(at + 1), mark };
  });
}

/** Whether any organisation's numbers went below what was read (a snapshot restored). */
async function wentBack(db: Executor, marks: NumberedMarks): Promise<boolean> {
  const orders = orderMarksOf(marks);
  const ledger = Object.entries(marks.ledger).map(([org, mark]) => ({ org, mark }));
  const { rows } = await sql<{ back: boolean }>`
    select exists (
      select 1 from unnest(${orders.map((o) => o.org)}::text[],
        ${orders.map((o) => o.source)}::text[], ${orders.map((o) => o.mark)}::bigint[])
        as m(org, source, mark)
      where coalesce((select max(o.seq) from orders as o
        where o.organisation_id = m.org and o.source = m.source), 0) < m.mark
    ) or exists (
      select 1 from unnest(${ledger.map((l) => l.org)}::text[], ${ledger.map((l) => l.mark)}::bigint[])
        as m(org, mark)
      where coalesce((select max(l.seq) from ledger_entries as l
        where l.organisation_id = m.org), 0) < m.mark
    ) as back`.execute(db);
  return rows[0]?.back === true;
}

/** The orders and journal entries numbered above `since`, summed, with the new marks. */
export async function readNumberedTally(
  db: Executor,
  since: NumberedMarks | undefined,
): Promise<NumberedTally> {
  const fresh = since === undefined || (await wentBack(db, since));
  const marks = fresh ? EMPTY : since;
  const orderMarks = orderMarksOf(marks);
  const ledgerMarks = Object.entries(marks.ledger);
  const orders = await sql<{
    organisation_id: string;
    source: string;
    status: string;
    currency: string;
    n: number | string;
    total: number | string | null;
    mark: number | string;
  }>`
    select k.organisation_id, k.source, o.status, o.currency,
      count(*) as n, sum(o.total) as total, max(o.seq) as mark
    from (
      select g.id as organisation_id, s.source, coalesce(m.mark, 0) as mark
      from organisations as g
      cross join (values ('order'), ('apply')) as s(source)
      left join unnest(${orderMarks.map((m) => m.org)}::text[],
        ${orderMarks.map((m) => m.source)}::text[], ${orderMarks.map((m) => m.mark)}::bigint[])
        as m(org, source, mark) on m.org = g.id and m.source = s.source
      offset 0
    ) as k
    cross join lateral (
      select o.status, o.currency, o.total, o.seq from orders as o
      where o.organisation_id = k.organisation_id and o.source = k.source and o.seq > k.mark
      order by o.seq
      offset 0
    ) as o
    group by k.organisation_id, k.source, o.status, o.currency`.execute(db);
  const money = await sql<{
    organisation_id: string;
    kind: string;
    currency: string;
    balance: number | string | null;
    test_credit: number | string | null;
    mark: number | string;
  }>`
    select k.organisation_id, l.kind, k.currency,
      sum(abs(l.balance_delta)) as balance, sum(abs(l.test_credit_delta)) as test_credit,
      max(l.seq) as mark
    from (
      select g.id as organisation_id, g.currency, coalesce(m.mark, 0) as mark
      from organisations as g
      left join unnest(${ledgerMarks.map(([org]) => org)}::text[],
        ${ledgerMarks.map(([, mark]) => mark)}::bigint[]) as m(org, mark) on m.org = g.id
      offset 0
    ) as k
    cross join lateral (
      select l.kind, l.balance_delta, l.test_credit_delta, l.seq from ledger_entries as l
      where l.organisation_id = k.organisation_id and l.seq > k.mark
      order by l.seq
      offset 0
    ) as l
    group by k.organisation_id, l.kind, k.currency`.execute(db);

  const orderTotals = new Map<string, OrderTotal>();
  const nextOrders: Record<string, number> = { ...marks.orders };
  for (const r of orders.rows) {
    const key = `${r.status} ${r.currency}`;
    const was = orderTotals.get(key);
    orderTotals.set(key, {
      status: r.status,
      currency: r.currency,
      count: num(r.n) + (was?.count ?? 0),
      total: num(r.total) + (was?.total ?? 0),
    });
    const at = `${r.organisation_id} ${r.source}`;
    nextOrders[at] = Math.max(nextOrders[at] ?? 0, num(r.mark));
  }
  const moneyTotals = new Map<string, MoneyTotal>();
  const nextLedger: Record<string, number> = { ...marks.ledger };
  for (const r of money.rows) {
    const key = `${r.kind} ${r.currency}`;
    const was = moneyTotals.get(key);
    moneyTotals.set(key, {
      kind: r.kind,
      currency: r.currency,
      balance: num(r.balance) + (was?.balance ?? 0),
      testCredit: num(r.test_credit) + (was?.testCredit ?? 0),
    });
    nextLedger[r.organisation_id] = Math.max(nextLedger[r.organisation_id] ?? 0, num(r.mark));
  }
  return {
    fresh,
    orders: [...orderTotals.values()],
    money: [...moneyTotals.values()],
    marks: { orders: nextOrders, ledger: nextLedger },
  };
}
