import { PostgresAdapter, sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { Executor } from '../database.js';
import type { LedgerEntriesTable, LedgerKind } from '../schema.js';

export interface LedgerMovement {
  organisationId: string;
  kind: LedgerKind;
  balanceDelta: number;
  testCreditDelta: number;
  reference: string;
  description: string;
  at: string;
  /**
   * Apply only if the test credit still has this value (compare-and-set): callers that split a
   * charge between test credit and balance from an earlier read use it to detect a change.
   */
  expectTestCredit?: number;
}

export interface Balances {
  balance: number;
  testCredit: number;
}

/**
 * Applies a movement to the organisation's balances and journals it, inside the caller's
 * transaction. The update is conditional, so two concurrent debits can never take the balance
 * below zero on either database: the loser sees no row updated and gets `undefined`.
 */
export async function applyMovement(
  trx: Executor,
  m: LedgerMovement,
): Promise<Balances | undefined> {
  if (trx.getExecutor().adapter instanceof PostgresAdapter) return applyMovementInOne(trx, m);
  const updated = await trx
    .updateTable('organisations')
    .set({
      balance: sql<number>`balance + ${m.balanceDelta}`,
      test_credit: sql<number>`test_credit + ${m.testCreditDelta}`,
      updated_at: m.at,
    })
    .where('id', '=', m.organisationId)
    .where(sql<boolean>`balance + ${m.balanceDelta} >= 0`)
    .where(sql<boolean>`test_credit + ${m.testCreditDelta} >= 0`)
    .$if(m.expectTestCredit !== undefined, (q) =>
      q.where('test_credit', '=', m.expectTestCredit ?? 0),
    )
    .returning(['balance', 'test_credit'])
    .executeTakeFirst();
  if (updated === undefined) return undefined;
  await trx
    .insertInto('ledger_entries')
    .values({
      organisation_id: m.organisationId,
      kind: m.kind,
      balance_delta: m.balanceDelta,
      test_credit_delta: m.testCreditDelta,
      balance_after: Number(updated.balance),
      test_credit_after: Number(updated.test_credit),
      reference: m.reference,
      description: m.description,
      created_at: m.at,
    })
    .execute();
  return { balance: Number(updated.balance), testCredit: Number(updated.test_credit) };
}

/**
 * PostgreSQL: the same conditional update and its journal entry in one statement (a
 * data-modifying CTE). The balance row stays locked from this statement to the commit, so one
 * round trip less is one round trip less that concurrent debits of the organisation wait for.
 */
async function applyMovementInOne(trx: Executor, m: LedgerMovement): Promise<Balances | undefined> {
  const b = sql`${m.balanceDelta}::bigint`;
  const t = sql`${m.testCreditDelta}::bigint`;
  const expect =
    m.expectTestCredit === undefined ? sql`` : sql`and test_credit = ${m.expectTestCredit}::bigint`;
  const result = await sql<{ balance_after: number; test_credit_after: number }>`
    with moved as (
      update organisations
      set balance = balance + ${b}, test_credit = test_credit + ${t}, updated_at = ${m.at}
      where id = ${m.organisationId} and balance + ${b} >= 0 and test_credit + ${t} >= 0 ${expect}
      returning id, balance, test_credit
    )
    insert into ledger_entries (organisation_id, kind, balance_delta, test_credit_delta,
      balance_after, test_credit_after, reference, description, created_at)
    select id, ${m.kind}, ${b}, ${t}, balance, test_credit, ${m.reference}, ${m.description}, ${m.at}
    from moved
    returning balance_after, test_credit_after
  `.execute(trx);
  const row = result.rows[0];
  if (row === undefined) return undefined;
  return { balance: Number(row.balance_after), testCredit: Number(row.test_credit_after) };
}

export interface Funds {
  balance: number;
  testCredit: number;
  testCreditExpiry: string | null;
}

const FUNDS_COLUMNS = ['balance', 'test_credit', 'test_credit_expiry'] as const;

function toFunds(
  row: { balance: number; test_credit: number; test_credit_expiry: string | null } | undefined,
): Funds | undefined {
  if (row === undefined) return undefined;
  return {
    balance: Number(row.balance),
    testCredit: Number(row.test_credit),
    testCreditExpiry: row.test_credit_expiry,
  };
}

export async function readFunds(db: Executor, organisationId: string): Promise<Funds | undefined> {
  return toFunds(
    await db
      .selectFrom('organisations')
      .select(FUNDS_COLUMNS)
      .where('id', '=', organisationId)
      .executeTakeFirst(),
  );
}

/**
 * The organisation's balances, read through a no-op update so that on PostgreSQL the row stays
 * locked until the caller's transaction ends (the same statement on both dialects; SQLite
 * transactions are serialised anyway).
 */
export async function lockFunds(trx: Executor, organisationId: string): Promise<Funds | undefined> {
  return toFunds(
    await trx
      .updateTable('organisations')
      .set({ balance: sql<number>`balance` })
      .where('id', '=', organisationId)
      .returning(FUNDS_COLUMNS)
      .executeTakeFirst(),
  );
}

export async function setTestCreditExpiry(
  trx: Executor,
  organisationId: string,
  expiry: string | null,
): Promise<void> {
  await trx
    .updateTable('organisations')
    .set({ test_credit_expiry: expiry })
    .where('id', '=', organisationId)
    .execute();
}

/** Organisations holding test credit whose expiry has passed. */
export async function findExpiredTestCredit(
  db: Executor,
  at: string,
  limit: number,
): Promise<{ id: string; testCredit: number }[]> {
  const rows = await db
    .selectFrom('organisations')
    .select(['id', 'test_credit'])
    .where('test_credit', '>', 0)
    .where('test_credit_expiry', 'is not', null)
    .where('test_credit_expiry', '<=', at)
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, testCredit: Number(r.test_credit) }));
}

export interface LedgerEntry {
  id: number;
  kind: LedgerKind;
  balanceDelta: number;
  testCreditDelta: number;
  balanceAfter: number;
  testCreditAfter: number;
  reference: string;
  description: string;
  createdAt: string;
}

/** The newest entries of an organisation's journal, newest first. */
export async function listLedgerEntries(
  db: Executor,
  organisationId: string,
  limit: number,
): Promise<LedgerEntry[]> {
  const rows = await db
    .selectFrom('ledger_entries')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(ledgerEntryOf);
}

function ledgerEntryOf(r: Selectable<LedgerEntriesTable>): LedgerEntry {
  return {
    id: Number(r.id),
    kind: r.kind,
    balanceDelta: Number(r.balance_delta),
    testCreditDelta: Number(r.test_credit_delta),
    balanceAfter: Number(r.balance_after),
    testCreditAfter: Number(r.test_credit_after),
    reference: r.reference,
    description: r.description,
    createdAt: r.created_at,
  };
}

export interface JournalTotals {
  organisationId: string;
  name: string;
  balance: number;
  testCredit: number;
  journalBalance: number;
  journalTestCredit: number;
  entries: number;
}

/** Every organisation's balances beside the sums of its journal. */
export async function journalTotals(db: Executor): Promise<JournalTotals[]> {
  const rows = await db
    .selectFrom('organisations as o')
    .leftJoin('ledger_entries as l', 'l.organisation_id', 'o.id')
    .select((eb) => [
      'o.id',
      'o.name',
      'o.balance',
      'o.test_credit',
      eb.fn.coalesce(eb.fn.sum<number>('l.balance_delta'), sql<number>`0`).as('journal_balance'),
      eb.fn
        .coalesce(eb.fn.sum<number>('l.test_credit_delta'), sql<number>`0`)
        .as('journal_test_credit'),
      eb.fn.count<number>('l.id').as('entries'),
    ])
    .groupBy(['o.id', 'o.name', 'o.balance', 'o.test_credit'])
    .orderBy('o.id')
    .execute();
  return rows.map((r) => ({
    organisationId: r.id,
    name: r.name,
    balance: Number(r.balance),
    testCredit: Number(r.test_credit),
    journalBalance: Number(r.journal_balance),
    journalTestCredit: Number(r.journal_test_credit),
    entries: Number(r.entries),
  }));
}

export interface BrokenLink {
  id: number;
  organisationId: string;
  expectedBalance: number;
  balanceAfter: number;
  expectedTestCredit: number;
  testCreditAfter: number;
}

/**
 * Journal entries whose running balances do not follow from the previous entry plus their own
 * deltas (or went below zero). Entry ids are assigned after the balance row is locked, so id
 * order is the order in which movements were applied.
 */
export async function brokenLinks(db: Executor, limit = 100): Promise<BrokenLink[]> {
  const result = await sql<{
    id: number;
    organisation_id: string;
    expected_balance: number;
    balance_after: number;
    expected_test_credit: number;
    test_credit_after: number;
  }>`
    select id, organisation_id, expected_balance, balance_after,
           expected_test_credit, test_credit_after
    from (
      select id, organisation_id, balance_after, test_credit_after,
        coalesce(lag(balance_after) over (partition by organisation_id order by id), 0)
          + balance_delta as expected_balance,
        coalesce(lag(test_credit_after) over (partition by organisation_id order by id), 0)
          + test_credit_delta as expected_test_credit
      from ledger_entries
    ) chained
    where expected_balance <> balance_after
       or expected_test_credit <> test_credit_after
       or balance_after < 0
       or test_credit_after < 0
    order by id
    limit ${limit}
  `.execute(db);
  return result.rows.map((r) => ({
    id: Number(r.id),
    organisationId: r.organisation_id,
    expectedBalance: Number(r.expected_balance),
    balanceAfter: Number(r.balance_after),
    expectedTestCredit: Number(r.expected_test_credit),
    testCreditAfter: Number(r.test_credit_after),
  }));
}

export interface OrderPayment {
  /** Id of the order's journal entry; 0 when the order was free (nothing was journaled). */
  entryId: number;
  fromBalance: number;
  fromTestCredit: number;
}

/** How an order was paid: its `order` journal entry, split between balance and test credit. */
export async function orderPayment(
  db: Executor,
  organisationId: string,
  reference: string,
): Promise<OrderPayment> {
  const row = await db
    .selectFrom('ledger_entries')
    .select(['id', 'balance_delta', 'test_credit_delta'])
    .where('organisation_id', '=', organisationId)
    .where('kind', '=', 'order')
    .where('reference', '=', reference)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (row === undefined) return { entryId: 0, fromBalance: 0, fromTestCredit: 0 };
  return {
    entryId: Number(row.id),
    fromBalance: -Number(row.balance_delta),
    fromTestCredit: -Number(row.test_credit_delta),
  };
}

/** What refunds journaled under a reference have given back so far. */
export async function refundedFor(
  db: Executor,
  organisationId: string,
  reference: string,
): Promise<Balances> {
  const row = await db
    .selectFrom('ledger_entries')
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<number>('balance_delta'), sql<number>`0`).as('balance'),
      eb.fn.coalesce(eb.fn.sum<number>('test_credit_delta'), sql<number>`0`).as('test_credit'),
    ])
    .where('organisation_id', '=', organisationId)
    .where('kind', '=', 'refund')
    .where('reference', '=', reference)
    .executeTakeFirstOrThrow();
  return { balance: Number(row.balance), testCredit: Number(row.test_credit) };
}

/** Whether test credit was written off as expired after the given journal entry. */
export async function testCreditExpiredSince(
  db: Executor,
  organisationId: string,
  entryId: number,
): Promise<boolean> {
  const row = await db
    .selectFrom('ledger_entries')
    .select('id')
    .where('organisation_id', '=', organisationId)
    .where('kind', '=', 'test_credit_expiry')
    .where('id', '>', entryId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** A page of an organisation's journal, newest first, and how many entries it has in all. */
export async function pageLedgerEntries(
  db: Executor,
  organisationId: string,
  page: { offset: number; limit: number },
): Promise<{ entries: LedgerEntry[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('ledger_entries')
      .selectAll()
      .where('organisation_id', '=', organisationId)
      .orderBy('id', 'desc')
      .offset(page.offset)
      .limit(page.limit)
      .execute(),
    db
      .selectFrom('ledger_entries')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('organisation_id', '=', organisationId)
      .executeTakeFirstOrThrow(),
  ]);
  return { entries: rows.map(ledgerEntryOf), total: Number(count.n) };
}

/** Up to `limit` entries after entry `afterId`, oldest first: the export reads the journal in chunks. */
export async function ledgerEntriesAfter(
  db: Executor,
  organisationId: string,
  afterId: number,
  limit: number,
): Promise<LedgerEntry[]> {
  const rows = await db
    .selectFrom('ledger_entries')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .where('id', '>', afterId)
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
  return rows.map(ledgerEntryOf);
}
