// Benchmark: what an order into inventory costs SQLite itself, without the service's JavaScript
// or HTTP. It places one order through the real service in this process (the test app, simulator
// mode), records the statements better-sqlite3 ran for it, copies the database to a file set up
// as the service sets its own (WAL, synchronous NORMAL, foreign keys on), and runs those
// statements again, prepared once, for BENCH_ORDERS orders (default 20,000) in transactions of
// BENCH_BATCH (default 50, a full group commit) with the balance update once a transaction, as
// the group writer does. Each variant starts from a fresh copy; the variants are alternated
// BENCH_ROUNDS (3) times. The figure is the process's CPU per order (process.cpuUsage), and each
// statement's share of the wall time spent in the statements.
//
//   npx tsx bench/order-sql.ts [variant,...]
//
// Variants: `shipped` (the statements and triggers as they are); `folded` (the two counters an
// order moves, its number among the organisation's orders and among its journal entries, moved
// once a transaction instead of once an order: their triggers dropped, the numbers given as
// values; an upper bound of what folding the counters could save).
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { envInteger, median } from './figures.js';
import { startTestApp } from '../test/harness.js';

interface Ran {
  readonly source: string;
  readonly args: unknown[];
  readonly database: SQLite.Database;
}

// Every statement better-sqlite3 runs while `recording` is set, with its parameters.
const ran: Ran[] = [];
let recording = false;
const statementPrototype = Object.getPrototypeOf(
  new SQLite(':memory:').prepare('select 1'),
) as SQLite.Statement & { run: (...args: unknown[]) => SQLite.RunResult };
const run = statementPrototype.run;
statementPrototype.run = function (this: SQLite.Statement, ...args: unknown[]) {
  if (recording) ran.push({ source: this.source, args, database: this.database });
  return run.apply(this, args);
};

const NEXT_NUMBER =
  /coalesce\(\(select value from organisation_counts\s+where organisation_id = \? and name = \?\), 0\) \+ 1/;

async function recordOneOrder(dir: string): Promise<{ inserts: Ran[]; organisationId: string }> {
  const t = await startTestApp('sqlite', { mode: 'simulator' });
  try {
    const org = await t.createOrg({ balance: 1_000_000_000 });
    const page = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/catalogue?perPage=1' });
    const bundle = (page.json() as { name: string }[])[0]?.name;
    if (bundle === undefined) throw new Error('the catalogue page is empty');
    const order = () =>
      t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: {
          type: 'transaction',
          assign: false,
          order: [{ type: 'bundle', item: bundle, quantity: 1 }],
        },
      });
    await order();
    recording = true;
    const answer = await order();
    recording = false;
    if (answer.statusCode !== 200) throw new Error(`the order failed: ${answer.body}`);
    const inserts = ran.filter((r) => r.source.startsWith('insert'));
    const database = inserts[0]?.database;
    if (database === undefined || inserts.length !== 4) {
      throw new Error(
        `expected the four inserts of an order, got ${ran.map((r) => r.source).join('; ')}`,
      );
    }
    await database.backup(join(dir, 'recorded.sqlite'));
    return { inserts, organisationId: org.id };
  } finally {
    await t.close();
  }
}

// Where each insert's reference (the order's) sits in its parameters, by table.
const REFERENCE_AT: Record<string, number> = {
  orders: 0,
  order_items: 0,
  inventory_batches: 2,
  ledger_entries: 6,
};

function tableOf(source: string): string {
  const table = /^insert into "(\w+)"/.exec(source)?.[1];
  if (table === undefined || !(table in REFERENCE_AT)) throw new Error(`unexpected: ${source}`);
  return table;
}

function measure(
  dir: string,
  recorded: { inserts: Ran[]; organisationId: string },
  variant: string,
  orders: number,
  batch: number,
): { cpuPerOrder: number; shares: Map<string, number> } {
  const path = join(dir, 'copy.sqlite');
  copyFileSync(join(dir, 'recorded.sqlite'), path);
  const db = new SQLite(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    const folded = variant === 'folded';
    if (folded) db.exec('drop trigger orders_counted; drop trigger ledger_entries_counted;');
    const statements = recorded.inserts.map((r) => ({
      table: tableOf(r.source),
      statement: db.prepare(folded ? r.source.replace(NEXT_NUMBER, '?') : r.source),
      args: r.args[0] as unknown[],
      numbered: NEXT_NUMBER.test(r.source),
    }));
    const count = db.prepare(`insert into organisation_counts (organisation_id, name, value)
      values (?, ?, ?) on conflict (organisation_id, name) do update set value = value + excluded.value`);
    const number = db.prepare(
      'select value from organisation_counts where organisation_id = ? and name = ?',
    );
    const balance = db.prepare('update organisations set balance = balance - 1 where id = ?');
    const org = recorded.organisationId;
    const spent = new Map<string, number>();
    const started = process.cpuUsage();
    for (let done = 0; done < orders; done += batch) {
      db.exec('begin immediate');
      const first = (name: string) =>
        Number((number.get(org, name) as { value: number } | undefined)?.value ?? 0);
      let seqs = folded ? { orders: first('orders:order'), ledger: first('ledger') } : undefined;
      for (let i = 0; i < batch; i += 1) {
        const reference = randomUUID();
        for (const s of statements) {
          const args = [...s.args];
          args[REFERENCE_AT[s.table] ?? 0] = reference;
          if (seqs !== undefined && s.numbered) {
            const seq = s.table === 'orders' ? ++seqs.orders : ++seqs.ledger;
            args.splice(args.length - 2, 2, seq);
          }
          const from = performance.now();
          s.statement.run(args);
          spent.set(s.table, (spent.get(s.table) ?? 0) + performance.now() - from);
        }
      }
      if (seqs !== undefined) {
        count.run(org, 'orders:order', batch);
        count.run(org, 'ledger', batch);
        seqs = undefined;
      }
      balance.run(org);
      const from = performance.now();
      db.exec('commit');
      spent.set('commit', (spent.get('commit') ?? 0) + performance.now() - from);
    }
    const used = process.cpuUsage(started);
    const total = [...spent.values()].reduce((a, b) => a + b, 0);
    const shares = new Map([...spent].map(([k, v]) => [k, v / total]));
    return { cpuPerOrder: (used.user + used.system) / orders, shares };
  } finally {
    db.close();
  }
}

const variants = (process.argv[2] ?? 'shipped,folded').split(',');
const orders = envInteger('BENCH_ORDERS', 20_000);
const batch = envInteger('BENCH_BATCH', 50);
const rounds = envInteger('BENCH_ROUNDS', 3);
const dir = mkdtempSync(join(tmpdir(), 'esim-bench-order-sql-'));
try {
  const recorded = await recordOneOrder(dir);
  const results = new Map<string, { cpu: number[]; shares: Map<string, number> }>();
  for (let round = 0; round < rounds; round += 1) {
    for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
      const r = measure(dir, recorded, variant, orders, batch);
      const seen = results.get(variant) ?? { cpu: [], shares: r.shares };
      seen.cpu.push(r.cpuPerOrder);
      results.set(variant, seen);
    }
  }
  console.log(
    `order-sql: ${orders} orders a round in transactions of ${batch}, ${rounds} rounds, variants alternated`,
  );
  console.log(
    '| Variant | CPU µs per order: median (rounds) | Share of statement time (last round) |',
  );
  console.log('| --- | --- | --- |');
  for (const [variant, r] of results) {
    const shares = [...r.shares]
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${Math.round(v * 100)} %`)
      .join(', ');
    const each = r.cpu.map((c) => c.toFixed(1)).join(', ');
    console.log(`| ${variant} | ${median(r.cpu).toFixed(1)} (${each}) | ${shares} |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
