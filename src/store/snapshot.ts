import { sql } from 'kysely';
import type { DialectName, Executor } from './database.js';
import { ASSIGNMENTS_BY_STATE } from './migrations/035-count-deltas.js';
import { FOLD_LOCK } from './repositories/count-repository.js';
import { writeEsimFilters } from './repositories/esim-filter-repository.js';

// The whole database as plain JSON and back: `esim sim export` / `import` and /_sim/snapshot.
// Every table but the migration bookkeeping, row by row; binary columns as {"$base64": ...}.
// Tables are emptied children first and filled parents first (their foreign keys read from the
// database itself), in one transaction, so a failed import leaves the state as it was.

// esim_filters (026) is what the eSIMs, their history and assignments say: it is not saved, and
// is filled again from them once they are back. organisation_bundles (032) is what the inventory
// batches say: emptied with the rest, it is written again by their triggers as they go back in.
// count_deltas (035, PostgreSQL) holds changes to the assignment counters not folded in yet: a
// snapshot's counters may lack them, so those counters are counted again from the rows once they
// are back, and the deltas the restore itself left are dropped.
// restore_state (035) counts the restores themselves: each one increments it, so /metrics
// knows the running totals it keeps were replaced beneath it.
const SKIPPED = new Set([
  'kysely_migration',
  'kysely_migration_lock',
  'esim_filters',
  'organisation_bundles',
  'count_deltas',
  'restore_state',
]);

// The row numbers of 022-growth and 023-list-counters: the triggers number rows as they are
// inserted, which here is the snapshot's order, not the order they were first written in; a
// deleted eSIM has none. So the snapshot's numbers are put back once every row is in, and then
// its totals (last: putting a number back may move a counter through the triggers).
const COUNTS = 'organisation_counts';
const NUMBERED = [
  ['orders', 'reference', 'seq'],
  ['esims', 'iccid', 'seq'],
  ['ledger_entries', 'id', 'seq'],
  ['callback_events', 'id', 'org_seq'],
] as const;

async function restoreNumbering(trx: Executor, tables: SnapshotTables): Promise<void> {
  for (const [table, key, column] of NUMBERED) {
    // An eSIM's row number, once given, may only be cleared (027-esim-deletions): the numbers
    // the inserts gave are cleared first, then the snapshot's are given.
    if (table === 'esims')
      await sql`update esims set seq = null where seq is not null`.execute(trx);
    for (const row of tables[table] ?? []) {
      if (!(column in row)) continue;
      await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${row[column] ?? null}
        where ${sql.ref(key)} = ${row[key] ?? null}`.execute(trx);
    }
  }
  await sql`delete from ${sql.table(COUNTS)}`.execute(trx);
  for (const row of tables[COUNTS] ?? []) {
    await sql`insert into ${sql.table(COUNTS)} (organisation_id, name, value)
      values (${row['organisation_id'] ?? null}, ${row['name'] ?? null}, ${row['value'] ?? null})`.execute(
      trx,
    );
  }
}

/**
 * The assignment counters (034, 035) counted from the restored rows, whatever the snapshot says:
 * one saved on PostgreSQL lacks the changes not folded when it was taken. The deltas the
 * restore's own writes left are dropped (PostgreSQL).
 */
async function recountAssignments(trx: Executor, dialect: DialectName): Promise<void> {
  if (dialect === 'postgres') await sql`delete from count_deltas`.execute(trx);
  await sql`delete from ${sql.table(COUNTS)} where name like 'assignments:%'`.execute(trx);
  await sql`insert into ${sql.table(COUNTS)} (organisation_id, name, value)
    select organisation_id, name, value from (${sql.raw(ASSIGNMENTS_BY_STATE)}) as c`.execute(trx);
}

export type SnapshotRow = Record<string, unknown>;
export type SnapshotTables = Record<string, SnapshotRow[]>;

interface Edge {
  readonly child: string;
  readonly parent: string;
}

async function tableNames(db: Executor, dialect: DialectName): Promise<string[]> {
  const tables = await db.introspection.getTables();
  void dialect;
  return tables
    .map((t) => t.name)
    .filter((name) => !SKIPPED.has(name) && !name.startsWith('sqlite_'));
}

async function foreignKeys(db: Executor, dialect: DialectName): Promise<Edge[]> {
  if (dialect === 'sqlite') {
    const { rows } = await sql<Edge>`
      select m.name as child, p."table" as parent
      from sqlite_master m join pragma_foreign_key_list(m.name) p
      where m.type = 'table'`.execute(db);
    return rows;
  }
  const { rows } = await sql<Edge>`
    select tc.table_name as child, ccu.table_name as parent
    from information_schema.table_constraints tc
    join information_schema.constraint_column_usage ccu
      on tc.constraint_name = ccu.constraint_name and tc.table_schema = ccu.table_schema
    where tc.constraint_type = 'FOREIGN KEY' and tc.table_schema = current_schema()`.execute(db);
  return rows;
}

/** The tables with every table before those that refer to it. */
async function parentsFirst(db: Executor, dialect: DialectName): Promise<string[]> {
  const names = await tableNames(db, dialect);
  const edges = (await foreignKeys(db, dialect)).filter((e) => e.child !== e.parent);
  const ordered: string[] = [];
  const placed = new Set<string>();
  const visit = (name: string, path: Set<string>): void => {
    if (placed.has(name) || path.has(name)) return;
    path.add(name);
    for (const e of edges) if (e.child === name) visit(e.parent, path);
    placed.add(name);
    ordered.push(name);
  };
  for (const name of names.sort()) visit(name, new Set());
  return ordered.filter((n) => names.includes(n));
}

function encode(row: Record<string, unknown>): SnapshotRow {
  const out: SnapshotRow = {};
  for (const [key, value] of Object.entries(row)) {
    out[key] =
      value instanceof Uint8Array ? { $base64: Buffer.from(value).toString('base64') } : value;
  }
  return out;
}

function decode(row: SnapshotRow): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    const encoded = value as { $base64?: unknown } | null;
    out[key] =
      typeof encoded === 'object' && encoded !== null && typeof encoded.$base64 === 'string'
        ? Buffer.from(encoded.$base64, 'base64')
        : value;
  }
  return out;
}

/**
 * Every row of every table (or of the tables named in `only`), tables parents first. Run it in
 * one snapshot (readSnapshot): each statement reads a table, and rows committed between two of
 * them would otherwise be in one table and not in another.
 */
export async function dumpTables(
  db: Executor,
  dialect: DialectName,
  only?: ReadonlySet<string>,
): Promise<SnapshotTables> {
  const tables: SnapshotTables = {};
  for (const name of await parentsFirst(db, dialect)) {
    if (only !== undefined && !only.has(name)) continue;
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(db);
    tables[name] = rows.rows.map(encode);
  }
  return tables;
}

/** What a snapshot's value of a column may be, by the column's type in this database. */
export type ColumnKind = 'integer' | 'int32' | 'real' | 'text' | 'blob' | 'boolean';

/**
 * What a column means beyond its type, where an import holds its values to the API's rules
 * (domain/simulator/snapshot-check.ts has the rule of each meaning).
 */
export type ColumnMeaning =
  | 'id'
  | 'name'
  | 'currency'
  | 'money'
  | 'signedMoney'
  | 'count'
  | 'bytes'
  | 'flag'
  | 'time'
  | 'day'
  | 'country'
  | 'url'
  | 'email'
  | 'timeZone'
  | 'iccid'
  | 'pin'
  | 'puk'
  | 'passwordHash'
  | 'bundleGroups'
  | 'ipAllowList'
  | 'stringList'
  | 'numberList'
  | 'jsonObject'
  | 'json'
  | 'quantity'
  | 'duration'
  | 'httpStatus'
  | 'probability'
  | 'latency'
  | 'simSetting'
  | 'callbackVersion'
  | 'billingType'
  | 'taxLiable'
  | 'businessType'
  | 'role'
  | 'orderStatus'
  | 'orderSource'
  | 'ledgerKind'
  | 'topUpStatus'
  | 'idempotencyState'
  | 'profileStatus'
  | 'esimState'
  | 'bundleState'
  | 'eventStatus'
  | 'deferredKind'
  | 'deferredStatus';

const MEANINGS: Readonly<Record<string, Readonly<Record<string, ColumnMeaning>>>> = {
  organisations: {
    id: 'id',
    name: 'name',
    currency: 'currency',
    groups: 'bundleGroups',
    ip_allow_list: 'ipAllowList',
    callback_url: 'url',
    callback_version: 'callbackVersion',
    billing_type: 'billingType',
    tax_liable: 'taxLiable',
    business_type: 'businessType',
    country: 'country',
    balance: 'money',
    test_credit: 'money',
  },
  users: { role: 'role', email_address: 'email', time_zone: 'timeZone' },
  bundles: {
    groups: 'stringList',
    countries: 'stringList',
    roaming: 'stringList',
    speed: 'stringList',
    price: 'money',
    data_amount: 'bytes',
    duration: 'duration',
    unlimited: 'flag',
    autostart: 'flag',
  },
  orders: {
    status: 'orderStatus',
    source: 'orderSource',
    total: 'money',
    assign: 'flag',
    currency: 'currency',
  },
  order_items: {
    quantity: 'quantity',
    price_per_unit: 'money',
    sub_total: 'money',
    iccids: 'stringList',
  },
  inventory_batches: { total: 'count', remaining: 'count' },
  ledger_entries: {
    kind: 'ledgerKind',
    balance_delta: 'signedMoney',
    test_credit_delta: 'signedMoney',
    balance_after: 'money',
    test_credit_after: 'money',
  },
  topups: { amount: 'money', status: 'topUpStatus' },
  idempotency_keys: { state: 'idempotencyState' },
  esims: {
    iccid: 'iccid',
    profile_status: 'profileStatus',
    state: 'esimState',
    pin: 'pin',
    puk: 'puk',
  },
  assignments: {
    state: 'bundleState',
    initial_bytes: 'bytes',
    remaining_bytes: 'bytes',
    used_bytes: 'count',
    unlimited: 'flag',
    duration_days: 'count',
    alerts_sent: 'numberList',
  },
  esim_network: { attached: 'flag' },
  callback_events: { status: 'eventStatus', payload: 'jsonObject', attempts: 'count' },
  callback_attempts: { request_headers: 'jsonObject' },
  audit_log: { details: 'jsonObject' },
  deferred_requests: { kind: 'deferredKind', status: 'deferredStatus', input: 'json' },
  portal_credentials: { password_hash: 'passwordHash' },
  payment_cards: { is_default: 'flag' },
  sim_faults: {
    status: 'httpStatus',
    remaining: 'count',
    probability: 'probability',
    latency_ms: 'latency',
  },
  sim_state: { value: 'simSetting' },
  usage_days: { day: 'day', bytes: 'count' },
  esim_usage_days: { day: 'day', bytes: 'count' },
};

/** A text column that holds a time (RFC 3339, or empty where it means "never"). */
const TIME_COLUMN = /(^at|_at|_until|expiry|_time|^last_seen)$/;

export interface ColumnShape {
  readonly kind: ColumnKind;
  /** What its values mean, when an import checks more than their type. */
  readonly meaning: ColumnMeaning | undefined;
  /** May be null (or left out). */
  readonly nullable: boolean;
  /** May be left out of a row: the database gives it a value. */
  readonly optional: boolean;
}

function kindOf(dataType: string, dialect: DialectName): ColumnKind {
  const type = dataType.toLowerCase();
  if (/bool/.test(type)) return 'boolean';
  // PostgreSQL's integer and smallint are 32 and 16 bits; SQLite's INTEGER and bigint are 64.
  if (dialect === 'postgres' && /^(int2|int4|integer|smallint|serial)$/.test(type)) return 'int32';
  if (/int/.test(type)) return 'integer';
  if (/real|float|double|numeric|decimal/.test(type)) return 'real';
  if (/blob|bytea/.test(type)) return 'blob';
  return 'text';
}

/**
 * The columns of every table a snapshot holds, as this database declares them: what an import
 * checks each value against before it writes (SQLite would otherwise store text in an integer
 * column). SQLite reports a primary key column as nullable; it is not.
 */
export async function snapshotColumns(
  db: Executor,
  dialect: DialectName,
): Promise<Map<string, Map<string, ColumnShape>>> {
  const names = new Set(await tableNames(db, dialect));
  const shapes = new Map<string, Map<string, ColumnShape>>();
  for (const table of await db.introspection.getTables()) {
    if (!names.has(table.name)) continue;
    const keys = new Set<string>();
    if (dialect === 'sqlite') {
      const { rows } = await sql<{ name: string }>`
        select name from pragma_table_info(${table.name}) where pk > 0`.execute(db);
      for (const row of rows) keys.add(row.name);
    }
    const columns = new Map<string, ColumnShape>();
    for (const c of table.columns) {
      const nullable = c.isNullable && !keys.has(c.name);
      const kind = kindOf(c.dataType, dialect);
      // An INTEGER primary key of SQLite is the row id: numbered when left out.
      const rowId = keys.has(c.name) && kind === 'integer';
      const meaning =
        MEANINGS[table.name]?.[c.name] ??
        (kind === 'text' && TIME_COLUMN.test(c.name) ? 'time' : undefined);
      columns.set(c.name, {
        kind,
        meaning,
        nullable,
        optional: nullable || c.hasDefaultValue || c.isAutoIncrementing || rowId,
      });
    }
    shapes.set(table.name, columns);
  }
  return shapes;
}

/** The migrations applied to this database, in order. */
export async function appliedMigrations(db: Executor): Promise<string[]> {
  const { rows } = await sql<{
    name: string;
  }>`select name from kysely_migration order by name`.execute(db);
  return rows.map((r) => r.name);
}

/**
 * Replaces every table's rows with the given ones (tables absent from `tables` end up empty),
 * inside the caller's transaction. The catalogue and authentication versions move past both the
 * old and the new value, so nothing held in memory from before the swap is used after it.
 */
export async function replaceTables(
  trx: Executor,
  dialect: DialectName,
  tables: SnapshotTables,
  /**
   * Checks the rows once they are all in (the caller's rules across tables); throwing rolls the
   * whole replacement back. It runs before PostgreSQL's sequences are moved, which a rollback
   * would not undo.
   */
  check?: (trx: Executor) => Promise<void>,
): Promise<void> {
  const order = await parentsFirst(trx, dialect);
  const unknown = Object.keys(tables).filter((t) => !order.includes(t));
  if (unknown.length > 0) throw new Error(`unknown tables: ${unknown.join(', ')}`);
  const versions: Record<string, number> = {};
  for (const name of ['auth_state', 'catalogue_state']) {
    const { rows } = await sql<{
      v: number | string | null;
    }>`select max(version) as v from ${sql.table(name)}`.execute(trx);
    versions[name] = Number(rows[0]?.v ?? 0);
  }
  // No fold (035) runs from here to the commit: it would wait for the counters deleted below
  // while holding deltas this restore deletes too.
  // Nor does any assignment written meanwhile both keep its delta and reach the recount.
  if (dialect === 'postgres') {
    await sql`select pg_advisory_xact_lock(${FOLD_LOCK}, 0)`.execute(trx);
    await sql`lock table assignments in share row exclusive mode`.execute(trx);
  }
  // Children first. Deleting deliveries moves their status counters (029's trigger), so the
  // counters are emptied once more just before the organisations they belong to.
  await sql`delete from organisation_bundles`.execute(trx);
  for (const name of [...order].reverse()) {
    if (name === 'organisations') await sql`delete from ${sql.table(COUNTS)}`.execute(trx);
    await sql`delete from ${sql.table(name)}`.execute(trx);
  }
  for (const name of order) {
    if (name === COUNTS) continue; // written by the numbering triggers; restored below
    const rows = (tables[name] ?? []).map(decode);
    // Small batches: SQLite allows some 32,000 parameters per statement.
    for (let i = 0; i < rows.length; i += 100) {
      const batch = rows.slice(i, i + 100);
      const columns = Object.keys(batch[0] ?? {});
      if (columns.length === 0) continue;
      const values = batch.map(
        (row) => sql`(${sql.join(columns.map((c) => sql`${row[c] ?? null}`))})`,
      );
      await sql`insert into ${sql.table(name)} (${sql.join(columns.map((c) => sql.ref(c)))}) values ${sql.join(values)}`.execute(
        trx,
      );
    }
  }
  await restoreNumbering(trx, tables);
  await recountAssignments(trx, dialect);
  await sql`update restore_state set version = version + 1`.execute(trx);
  // PostgreSQL defers esim_filters' triggers to the commit: they fire now, before the filters
  // are written afresh, so that none of them runs on the new rows afterwards.
  if (dialect === 'postgres') await sql`set constraints all immediate`.execute(trx);
  await writeEsimFilters(trx);
  for (const name of ['auth_state', 'catalogue_state']) {
    const { rows } = await sql<{
      v: number | string | null;
    }>`select max(version) as v from ${sql.table(name)}`.execute(trx);
    const next = Math.max(versions[name] ?? 0, Number(rows[0]?.v ?? 0)) + 1;
    await sql`update ${sql.table(name)} set version = ${next}`.execute(trx);
  }
  if (check !== undefined) await check(trx);
  if (dialect === 'postgres') await resetSequences(trx);
  // SQLite's AUTOINCREMENT remembers the largest id a table ever had: without its row, the next
  // id follows the largest one now in the table, as on PostgreSQL above.
  else await sql`delete from sqlite_sequence`.execute(trx);
}

// PostgreSQL's serial and identity columns draw from sequences that an insert with explicit ids
// does not move: each is set past the largest id now in its table.
async function resetSequences(trx: Executor): Promise<void> {
  const { rows } = await sql<{ table_name: string; column_name: string }>`
    select table_name, column_name from information_schema.columns
    where table_schema = current_schema()
      and (column_default like 'nextval(%' or is_identity = 'YES')`.execute(trx);
  for (const { table_name: table, column_name: column } of rows) {
    await sql`select setval(pg_get_serial_sequence(${table}, ${column}),
      coalesce((select max(${sql.ref(column)}) from ${sql.table(table)}), 0) + 1, false)`.execute(
      trx,
    );
  }
}
