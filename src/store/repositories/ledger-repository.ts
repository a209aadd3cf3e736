import { CompiledQuery, PostgresAdapter, sql } from 'kysely';
import type { Selectable } from 'kysely';
import { batchOf } from '../batch.js';
import type { Batch } from '../batch.js';
import { compiledOnce } from '../compiled.js';
import { countOf, nextNumber, pageBounds } from './count-repository.js';
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

interface MovementValues {
  organisationId: string;
  kind: LedgerKind;
  balanceDelta: number;
  testCreditDelta: number;
  reference: string;
  description: string;
  at: string;
  expectTestCredit: number;
}

/** SQLite: the conditional update, with or without the test credit compare-and-set. */
function sqliteUpdate(expect: boolean) {
  return compiledOnce((db, p: MovementValues) =>
    db
      .updateTable('organisations')
      .set({
        balance: sql<number>`balance + ${p.balanceDelta}`,
        test_credit: sql<number>`test_credit + ${p.testCreditDelta}`,
        updated_at: p.at,
      })
      .where('id', '=', p.organisationId)
      .where(sql<boolean>`balance + ${p.balanceDelta} >= 0`)
      .where(sql<boolean>`test_credit + ${p.testCreditDelta} >= 0`)
      .$if(expect, (q) => q.where('test_credit', '=', p.expectTestCredit))
      .returning(['balance', 'test_credit', 'test_credit_expiry']),
  );
}

const SQLITE_UPDATE = { plain: sqliteUpdate(false), expecting: sqliteUpdate(true) };

const insertEntry = compiledOnce(
  (db, p: MovementValues & { balanceAfter: number; testCreditAfter: number }) => {
    // SQLite: numbered by the insert (036-numbered-inserts).
    const seq = nextNumber(db, p.organisationId, 'ledger');
    return db.insertInto('ledger_entries').values({
      organisation_id: p.organisationId,
      kind: p.kind,
      balance_delta: p.balanceDelta,
      test_credit_delta: p.testCreditDelta,
      balance_after: p.balanceAfter,
      test_credit_after: p.testCreditAfter,
      reference: p.reference,
      description: p.description,
      created_at: p.at,
      ...(seq === undefined ? {} : { seq }),
    });
  },
);

type EntryValues = MovementValues & { balanceAfter: number; testCreditAfter: number };

/** PostgreSQL: journal entries in one statement; ids follow the order of the arrays. */
const INSERT_ENTRIES = `
  insert into ledger_entries (organisation_id, kind, balance_delta, test_credit_delta,
    balance_after, test_credit_after, reference, description, created_at)
  select organisation_id, kind, balance_delta, test_credit_delta, balance_after,
    test_credit_after, reference, description, created_at
  from unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[],
    $7::text[], $8::text[], $9::text[]) with ordinality
    as t(organisation_id, kind, balance_delta, test_credit_delta, balance_after,
      test_credit_after, reference, description, created_at, n)
  order by n
`;

async function insertEntries(trx: Executor, entries: readonly EntryValues[]): Promise<void> {
  const column = <T>(of: (e: EntryValues) => T): T[] => entries.map(of);
  await trx.executeQuery(
    CompiledQuery.raw(INSERT_ENTRIES, [
      column((e) => e.organisationId),
      column((e) => e.kind),
      column((e) => e.balanceDelta),
      column((e) => e.testCreditDelta),
      column((e) => e.balanceAfter),
      column((e) => e.testCreditAfter),
      column((e) => e.reference),
      column((e) => e.description),
      column((e) => e.at),
    ]),
  );
}

function movementValues(m: LedgerMovement): MovementValues {
  return { ...m, expectTestCredit: m.expectTestCredit ?? 0 };
}

/**
 * Applies a movement to the organisation's balances and journals it, inside the caller's
 * transaction. The update is conditional, so two concurrent debits can never take the balance
 * below zero on either database: the loser sees no row updated and gets `undefined`. Returns the
 * organisation's funds after it (the row stays locked until the transaction ends).
 */
export async function applyMovement(trx: Executor, m: LedgerMovement): Promise<Funds | undefined> {
  // Balances held by the batch (holdFunds) go to the row first: the update starts from them.
  await batchOf(trx)?.flush(trx, heldKey(m.organisationId));
  if (trx.getExecutor().adapter instanceof PostgresAdapter) return applyMovementInOne(trx, m);
  const values = movementValues(m);
  const update = m.expectTestCredit === undefined ? SQLITE_UPDATE.plain : SQLITE_UPDATE.expecting;
  const updated = (await update.execute(trx, values)).rows[0];
  if (updated === undefined) return undefined;
  const funds = toFunds(updated);
  await insertEntry.execute(trx, {
    ...values,
    balanceAfter: funds.balance,
    testCreditAfter: funds.testCredit,
  });
  return funds;
}

// A debit: the ledger's rule decides it, the store writes it by one of three paths.
//
// - Plain: the row is updated and journaled (applyMovement), conditionally on the test credit
//   the decision was made on; on a miss the row is locked, read again and decided again.
// - Held: several movements of one organisation in a group-commit batch (its orders) update the
//   balance row once. The first is applied by the plain path, which locks the row until the
//   commit; its funds are then held in the batch (batch.ts). Each further debit is decided on the
//   held funds and only journaled, with the running balances the journal needs; the row gets the
//   last of them just before the commit, or before any other statement of the batch that touches
//   the balances.
// - Locked batch (PostgreSQL, a batch of several orders): the first debit locks and reads the
//   balance rows of every organisation of the batch in one statement, in id order as every batch
//   does; every debit of the batch is then decided on held funds, and the rows are written in one
//   statement before the commit. A batch of any size then costs the same few statements.

/** What the ledger's rule decided on the funds it was shown. */
export interface DebitDecision {
  /** Expired test credit to write off first; its expiry is cleared with it. */
  readonly writeOff?: LedgerMovement;
  /** The debit itself, decided on the funds left after the write-off. */
  readonly debit: LedgerMovement;
}

/**
 * The rule of a debit. `exact`: the funds are the row's under its lock (or held by the batch);
 * otherwise an earlier snapshot, and undefined asks to be shown the exact funds. Throws to
 * refuse (insufficient funds): nothing is written.
 */
export type DecideDebit = (funds: Funds, exact: boolean) => DebitDecision | undefined;

/**
 * Debits an organisation in the caller's transaction as `decide` decides, on held funds, on the
 * batch's locked rows, or on `snapshot` and then the locked row: whichever the transaction
 * allows. Returns the funds after it; undefined when there is no such organisation.
 */
export async function debit(
  trx: Executor,
  organisationId: string,
  decide: DecideDebit,
  snapshot?: Funds,
): Promise<Funds | undefined> {
  const batch = batchOf(trx);
  if (batch !== undefined) {
    const held =
      heldIn(batch, organisationId) ?? (await lockBatchFunds(trx, batch, organisationId));
    const decision = held === undefined ? undefined : decide(held, true);
    // A write-off goes through the plain path, which writes the held funds to the row first.
    if (held !== undefined && decision !== undefined && decision.writeOff === undefined) {
      const after = await applyHeldMovement(trx, batch, held, decision.debit);
      if (after !== undefined) return after;
    }
  }
  for (const exact of snapshot === undefined ? [true] : [false, true]) {
    const funds = exact ? await lockFunds(trx, organisationId) : snapshot;
    if (funds === undefined) return undefined;
    const decision = decide(funds, exact);
    if (decision === undefined) continue;
    let expectTestCredit = funds.testCredit;
    if (decision.writeOff !== undefined) {
      const done = await applyMovement(trx, { ...decision.writeOff, expectTestCredit });
      if (done === undefined) continue;
      await setTestCreditExpiry(trx, organisationId, null);
      expectTestCredit = done.testCredit;
    }
    const after = await applyMovement(trx, { ...decision.debit, expectTestCredit });
    if (after !== undefined) {
      if (batch !== undefined) hold(batch, organisationId, { funds: after, pending: false });
      return after;
    }
  }
  // The row was locked and read just before: a miss here means the store changed under a lock.
  throw new Error(`the debit of ${organisationId} could not be applied`);
}

/** Funds held: as the row has them, or moved since (`at`: when, the row's updated_at). */
type Held =
  | { readonly funds: Funds; readonly pending: false }
  | { readonly funds: Funds; readonly pending: true; readonly at: string };

const heldKey = (organisationId: string) => `funds:${organisationId}`;

const BATCH_LOCKED = 'funds:locked-for-batch';

/** PostgreSQL: the balance rows of the batch's organisations, locked in id order. */
const LOCK_BATCH_FUNDS = `
  select id, balance, test_credit, test_credit_expiry from organisations
  where id = any($1::text[]) order by id for no key update
`;

/**
 * PostgreSQL: locks and holds the funds of every organisation of the batch, once per batch and
 * only for a batch of several writes (Batch.groups). The funds of `organisationId` when it is
 * now held. Nothing is held for an organisation of which the batch already moved money another way.
 */
async function lockBatchFunds(
  trx: Executor,
  batch: Batch,
  organisationId: string,
): Promise<Funds | undefined> {
  if (
    !(trx.getExecutor().adapter instanceof PostgresAdapter) ||
    !batch.groups.includes(organisationId) ||
    batch.get(BATCH_LOCKED) !== undefined
  ) {
    return undefined;
  }
  const { rows } = await trx.executeQuery<{
    id: string;
    balance: number;
    test_credit: number;
    test_credit_expiry: string | null;
  }>(CompiledQuery.raw(LOCK_BATCH_FUNDS, [batch.groups]));
  // A marker in the batch: rolled back with the savepoint that took the locks, like them.
  batch.set(BATCH_LOCKED, { flush: async () => undefined });
  for (const row of rows) {
    if (batch.get(heldKey(row.id)) === undefined) {
      hold(batch, row.id, { funds: toFunds(row), pending: false });
    }
  }
  return heldIn(batch, organisationId);
}

/** PostgreSQL: the balances of a batch's organisations, in one statement. */
const WRITE_HELD_FUNDS = `
  update organisations o
  set balance = v.balance, test_credit = v.test_credit, updated_at = v.at
  from unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[])
    as v(id, balance, test_credit, at)
  where o.id = v.id
`;

interface HeldRow {
  organisationId: string;
  balance: number;
  testCredit: number;
  at: string;
}

async function writeHeldFunds(trx: Executor, rows: readonly HeldRow[]): Promise<void> {
  await trx.executeQuery(
    CompiledQuery.raw(WRITE_HELD_FUNDS, [
      rows.map((r) => r.organisationId),
      rows.map((r) => r.balance),
      rows.map((r) => r.testCredit),
      rows.map((r) => r.at),
    ]),
  );
}

const writeHeld = compiledOnce(
  (db, p: { organisationId: string; balance: number; testCredit: number; at: string }) =>
    db
      .updateTable('organisations')
      .set({ balance: p.balance, test_credit: p.testCredit, updated_at: p.at })
      .where('id', '=', p.organisationId),
);

/** An organisation's funds held in a batch, written to its row when the batch flushes it. */
class HeldFunds {
  constructor(
    private readonly batch: Batch,
    private readonly organisationId: string,
    readonly held: Held,
  ) {}

  async flush(tx: Executor): Promise<void> {
    if (!this.held.pending) return;
    const { balance, testCredit } = this.held.funds;
    const row = { organisationId: this.organisationId, balance, testCredit, at: this.held.at };
    // PostgreSQL: the rows of every organisation the batch debited go in one statement.
    if (tx.getExecutor().adapter instanceof PostgresAdapter) {
      this.batch.queue('held funds', row, writeHeldFunds);
    } else {
      await writeHeld.execute(tx, row);
    }
  }
}

/** Holds the organisation's funds in the batch (a new entry each time: see Batch.restore). */
function hold(batch: Batch, organisationId: string, held: Held): void {
  batch.set(heldKey(organisationId), new HeldFunds(batch, organisationId, held));
}

/** The funds held for the organisation in this batch, exact: the row is locked. */
function heldIn(batch: Batch, organisationId: string): Funds | undefined {
  const entry = batch.get(heldKey(organisationId));
  return entry instanceof HeldFunds ? entry.held.funds : undefined;
}

/**
 * Journals a movement against the held funds and holds the result; the balance row is written
 * before the commit. Undefined, and nothing written, if the movement would take either balance
 * below zero.
 */
async function applyHeldMovement(
  trx: Executor,
  batch: Batch,
  held: Funds,
  m: LedgerMovement,
): Promise<Funds | undefined> {
  const after: Funds = {
    balance: held.balance + m.balanceDelta,
    testCredit: held.testCredit + m.testCreditDelta,
    testCreditExpiry: held.testCreditExpiry,
  };
  if (after.balance < 0 || after.testCredit < 0) return undefined;
  const entry = {
    ...movementValues(m),
    balanceAfter: after.balance,
    testCreditAfter: after.testCredit,
  };
  // PostgreSQL: the batch inserts its entries in one statement, in the order they were decided.
  if (trx.getExecutor().adapter instanceof PostgresAdapter) {
    batch.queue('journal entries', entry, insertEntries);
  } else {
    await insertEntry.execute(trx, entry);
  }
  hold(batch, m.organisationId, { funds: after, at: m.at, pending: true });
  return after;
}

/**
 * PostgreSQL: the same conditional update and its journal entry in one statement (a
 * data-modifying CTE). The balance row stays locked from this statement to the commit, so one
 * round trip less is one round trip less that concurrent debits of the organisation wait for.
 */
function postgresMovement(expectTestCredit: boolean) {
  return compiledOnce((db, p: MovementValues) => {
    const b = sql`${p.balanceDelta}::bigint`;
    const t = sql`${p.testCreditDelta}::bigint`;
    const expect = expectTestCredit ? sql`and test_credit = ${p.expectTestCredit}::bigint` : sql``;
    const statement = sql<{
      balance: number;
      test_credit: number;
      test_credit_expiry: string | null;
    }>`
      with moved as (
        update organisations
        set balance = balance + ${b}, test_credit = test_credit + ${t}, updated_at = ${p.at}
        where id = ${p.organisationId} and balance + ${b} >= 0 and test_credit + ${t} >= 0 ${expect}
        returning id, balance, test_credit, test_credit_expiry
      ), journaled as (
        insert into ledger_entries (organisation_id, kind, balance_delta, test_credit_delta,
          balance_after, test_credit_after, reference, description, created_at)
        select id, ${p.kind}, ${b}, ${t}, balance, test_credit, ${p.reference}, ${p.description},
          ${p.at}
        from moved
      )
      select balance, test_credit, test_credit_expiry from moved
    `;
    return { compile: () => statement.compile(db) };
  });
}

const POSTGRES_MOVEMENT = { plain: postgresMovement(false), expecting: postgresMovement(true) };

async function applyMovementInOne(trx: Executor, m: LedgerMovement): Promise<Funds | undefined> {
  const statement =
    m.expectTestCredit === undefined ? POSTGRES_MOVEMENT.plain : POSTGRES_MOVEMENT.expecting;
  const row = (await statement.execute(trx, movementValues(m))).rows[0];
  return row === undefined ? undefined : toFunds(row);
}

export interface Funds {
  balance: number;
  testCredit: number;
  testCreditExpiry: string | null;
}

const FUNDS_COLUMNS = ['balance', 'test_credit', 'test_credit_expiry'] as const;

function toFunds(row: {
  balance: number;
  test_credit: number;
  test_credit_expiry: string | null;
}): Funds {
  return {
    balance: Number(row.balance),
    testCredit: Number(row.test_credit),
    testCreditExpiry: row.test_credit_expiry,
  };
}

export async function readFunds(db: Executor, organisationId: string): Promise<Funds | undefined> {
  await batchOf(db)?.flush(db, heldKey(organisationId));
  const row = await db
    .selectFrom('organisations')
    .select(FUNDS_COLUMNS)
    .where('id', '=', organisationId)
    .executeTakeFirst();
  return row === undefined ? undefined : toFunds(row);
}

/**
 * The organisation's balances, read through a no-op update so that on PostgreSQL the row stays
 * locked until the caller's transaction ends (the same statement on both dialects; SQLite
 * transactions are serialised anyway).
 */
export async function lockFunds(trx: Executor, organisationId: string): Promise<Funds | undefined> {
  await batchOf(trx)?.flush(trx, heldKey(organisationId));
  const row = await trx
    .updateTable('organisations')
    .set({ balance: sql<number>`balance` })
    .where('id', '=', organisationId)
    .returning(FUNDS_COLUMNS)
    .executeTakeFirst();
  return row === undefined ? undefined : toFunds(row);
}

export async function setTestCreditExpiry(
  trx: Executor,
  organisationId: string,
  expiry: string | null,
): Promise<void> {
  await batchOf(trx)?.flush(trx, heldKey(organisationId));
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

// An organisation's entries are numbered (`seq`) in the order they were applied, as their ids
// are: every movement locks the organisation's balance row before it journals, so its entries
// are written one transaction at a time. Reads in journal order go through
// `ledger_entries_org_seq`.

/** The seq of entry `id` of the organisation, 0 when it has none (reads after it start there). */
const seqOf = (organisationId: string, id: number) =>
  sql<number>`coalesce((select seq from ledger_entries
    where id = ${id} and organisation_id = ${organisationId}), 0)`;

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
    .orderBy('organisation_id', 'desc')
    .orderBy('seq', 'desc')
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
 * deltas (or went below zero). Each organisation's entries are chained in `seq` order, the
 * order in which its movements were applied.
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
        coalesce(lag(balance_after) over (partition by organisation_id order by seq), 0)
          + balance_delta as expected_balance,
        coalesce(lag(test_credit_after) over (partition by organisation_id order by seq), 0)
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

/**
 * The balance an order left: balance_after of its `order` journal entry (minor units), or
 * undefined when nothing was journaled (a free order). One row, by the reference index.
 */
const balanceAfterOrderStatement = compiledOnce(
  (db, p: { organisationId: string; reference: string }) =>
    db
      .selectFrom('ledger_entries')
      .select('balance_after')
      .where('organisation_id', '=', p.organisationId)
      .where('kind', '=', 'order')
      .where('reference', '=', p.reference)
      .orderBy('id')
      .limit(1),
);

export async function balanceAfterOrder(
  db: Executor,
  organisationId: string,
  reference: string,
): Promise<number | undefined> {
  // Compiled once: it runs after every v2.5 order.
  const { rows } = await balanceAfterOrderStatement.execute(db, { organisationId, reference });
  const row = rows[0];
  return row === undefined ? undefined : Number(row.balance_after);
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
    .where('seq', '>', seqOf(organisationId, entryId))
    .where('kind', '=', 'test_credit_expiry')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * A page of an organisation's journal, newest first, and how many entries it has in all: the
 * total is a counter, the page a range of row numbers read through `ledger_entries_org_seq`.
 */
export async function pageLedgerEntries(
  db: Executor,
  organisationId: string,
  page: { offset: number; limit: number },
): Promise<{ entries: LedgerEntry[]; total: number }> {
  const total = await countOf(db, organisationId, 'ledger');
  const { from, to } = pageBounds(total, page, 'desc');
  if (to < from) return { entries: [], total };
  const rows = await db
    .selectFrom('ledger_entries')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .where('seq', '>=', from)
    .where('seq', '<=', to)
    .orderBy('organisation_id', 'desc')
    .orderBy('seq', 'desc')
    .execute();
  return { entries: rows.map(ledgerEntryOf), total };
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
    .where('seq', '>', seqOf(organisationId, afterId))
    .orderBy('organisation_id')
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map(ledgerEntryOf);
}
