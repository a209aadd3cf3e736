// Benchmark: what the database keeps per order, per eSIM and per usage callback, table by table
// and index by index. Everything goes through the service as an integrator's calls and the
// network's events reach it (the HTTP API in-process, the simulated network, the delivery worker
// to a V3 receiver in its own process), in four steps, each measured as the growth of every table
// and index it caused, divided by its count:
//   (1) orders to inventory: one unit each (`assign: false`);
//   (2) orders onto new eSIMs: one each (`assign: true`);
//   (3) each of those eSIMs installed and attached, and the callbacks this causes delivered;
//   (4) each eSIM attached to another country: the attach and the one CountryChange callback it
//       causes, delivered.
// SQLite's sizes are its pages (the dbstat table) after a WAL checkpoint; PostgreSQL's are
// pg_relation_size of each table (with its TOAST table) and each index, as they stand: autovacuum
// may be off on a development server, so rows an update left behind are counted. The simulator's
// request journal (api_requests) is left out: it is capped at about 5,000 rows and written in
// simulator mode only, so it costs an order nothing at scale.
//
//   npx tsx bench/space.ts [sqlite|postgres] [count, 20000]
// See bench/README.md.
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { saveBundles } from '../src/domain/catalogue/save-bundles.js';
import { openAccount } from '../src/domain/money/ledger.js';
import { createOrganisation } from '../src/domain/organisations/organisation-changes.js';
import { buildApp } from '../src/app.js';
import { iso } from '../src/clock.js';
import { openServices } from '../src/main.js';
import { createSimulatedEvents } from '../src/network/simulated-events.js';
import type { Db } from '../src/store/database.js';
import { createCallbackWorker } from '../src/workers/callback-delivery.js';
import { startReceiverProcess } from '../test/callbacks/processes.js';
import { dropUnlessKept, scratchDatabase } from './scratch-database.js';

const BUNDLE = 'bench_space_unit';
/** Requests under way at once while ordering. */
const AT_ONCE = 8;

interface Relation {
  readonly name: string;
  /** The table an index belongs to; the table's own name for a table. */
  readonly table: string;
  readonly index: boolean;
  readonly bytes: number;
}

/** Tables left out of the figures (see the header). */
const LEFT_OUT: ReadonlySet<string> = new Set(['api_requests']);

/** Every table and index with its size now. */
async function relations(kind: string, db: Db): Promise<Map<string, Relation>> {
  type Row = { name: string; table: string; is_index: number | boolean; bytes: number | string };
  let rows: Row[];
  if (kind === 'sqlite') {
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
    rows = (
      await sql<Row>`
        select d.name as name, coalesce(m.tbl_name, d.name) as "table",
               coalesce(m.type, 'table') = 'index' as is_index, sum(d.pgsize) as bytes
        from dbstat d left join sqlite_master m on m.name = d.name
        group by d.name`.execute(db)
    ).rows;
  } else {
    rows = (
      await sql<Row>`
        select c.relname as name, coalesce(t.relname, c.relname) as "table",
               c.relkind = 'i' as is_index,
               pg_relation_size(c.oid)
                 + case when c.reltoastrelid = 0 then 0
                   else pg_total_relation_size(c.reltoastrelid) end as bytes
        from pg_class c
        join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
        left join pg_index i on i.indexrelid = c.oid
        left join pg_class t on t.oid = i.indrelid
        where c.relkind in ('r', 'i')`.execute(db)
    ).rows;
  }
  return new Map(
    rows.map((r) => [
      r.name,
      { name: r.name, table: r.table, index: Boolean(r.is_index), bytes: Number(r.bytes) },
    ]),
  );
}

/** The growth of each relation between two readings, per unit, largest table first. */
function growth(
  before: Map<string, Relation>,
  after: Map<string, Relation>,
  units: number,
): { lines: string[]; total: number } {
  const grown = [...after.values()]
    .filter((r) => !LEFT_OUT.has(r.table))
    .map((r) => ({ ...r, per: (r.bytes - (before.get(r.name)?.bytes ?? 0)) / units }))
    .filter((r) => r.per !== 0);
  const tables = new Map<string, typeof grown>();
  for (const r of grown) tables.set(r.table, [...(tables.get(r.table) ?? []), r]);
  const ofTable = (rows: typeof grown) => rows.reduce((sum, r) => sum + r.per, 0);
  const lines: string[] = [];
  let total = 0;
  for (const [table, rows] of [...tables].sort((a, b) => ofTable(b[1]) - ofTable(a[1]))) {
    const all = ofTable(rows);
    total += all;
    const own = rows.find((r) => !r.index)?.per ?? 0;
    lines.push(`| ${table} | ${all.toFixed(0)} | ${own.toFixed(0)} (rows) |`);
    for (const r of rows.filter((x) => x.index).sort((a, b) => b.per - a.per)) {
      lines.push(`|   ${r.name} | | ${r.per.toFixed(0)} |`);
    }
  }
  return { lines, total };
}

async function main(): Promise<void> {
  const kind = process.argv[2] ?? 'sqlite';
  const count = Number(process.argv[3] ?? '20000');
  if (!Number.isInteger(count) || count <= 0) throw new Error('count must be a positive integer');
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const db0 = await scratchDatabase(kind, 'space');
  const receiver = await startReceiverProcess();
  const config = loadConfig({
    DATABASE_URL: db0.url,
    DATA_DIR: db0.dir,
    LOG_LEVEL: 'silent',
    DEMO_ON_FIRST_START: 'false',
    CALLBACK_MAX_PENDING: String(count * 4),
  });
  const services = await openServices(config, { checkpointThread: false });
  const { deps } = services;
  const db = deps.store.db;
  const app = await buildApp(deps, { logLevel: 'silent' });
  await app.ready();
  try {
    await db.transaction().execute((trx) =>
      saveBundles(
        trx,
        [
          {
            name: BUNDLE,
            description: 'Space benchmark unit',
            groups: ['Standard eSIM Bundles'],
            countries: ['FR', 'DE'],
            roaming: [],
            dataAmount: 1000,
            duration: 30,
            speed: ['4G'],
            autostart: true,
            unlimited: false,
            price: 1,
          },
        ],
        iso(deps.clock.now()),
      ),
    );
    const org = await createOrganisation(
      { db, clock: deps.clock, random: deps.random, cipher: deps.cipher },
      { name: 'Space', callbackUrl: `${receiver.url}/hook`, callbackVersion: 'V3' },
      (trx, o) => openAccount(trx, { organisationId: o.id, balance: 1e12, at: deps.clock.now() }),
    );
    const order = async (assign: boolean): Promise<string[]> => {
      const res = await app.inject({
        method: 'POST',
        url: '/v2.1/orders',
        headers: { 'x-api-key': org.apiKey },
        payload: {
          type: 'transaction',
          assign,
          order: [{ type: 'bundle', item: BUNDLE, quantity: 1 }],
        },
      });
      if (res.statusCode !== 200) throw new Error(`order: ${res.statusCode} ${res.body}`);
      return (res.json() as { order: { iccids?: string[] }[] }).order[0]?.iccids ?? [];
    };
    const orders = async (assign: boolean): Promise<string[]> => {
      const iccids: string[] = [];
      for (let done = 0; done < count; done += AT_ONCE) {
        const n = Math.min(AT_ONCE, count - done);
        for (const got of await Promise.all(Array.from({ length: n }, () => order(assign)))) {
          iccids.push(...got);
        }
      }
      return iccids;
    };
    const network = createSimulatedEvents(deps, deps.random, deps.network);
    const log = { warn: (_: object, message: string) => print(`  warn: ${message}`) };
    const deliver = async () => {
      const worker = createCallbackWorker(deps, log);
      await worker.drain();
      await worker.stop();
    };
    let iccids: string[] = [];
    const steps: { label: string; unit: string; run: () => Promise<void> }[] = [
      {
        label: 'orders to inventory, one unit each',
        unit: 'order',
        run: async () => void (await orders(false)),
      },
      {
        label: 'orders onto a new eSIM each',
        unit: 'order',
        run: async () => {
          iccids = await orders(true);
          if (iccids.length !== count)
            throw new Error(`${iccids.length} eSIMs for ${count} orders`);
        },
      },
      {
        label: 'eSIMs installed and attached (FR), their callbacks delivered',
        unit: 'eSIM',
        run: async () => {
          for (const iccid of iccids) {
            await network.installProfile(iccid, 'Installed');
            await network.attach(iccid, { country: 'FR' });
          }
          await deliver();
        },
      },
      {
        label: 'each eSIM attached to DE, its one callback delivered',
        unit: 'attach and callback',
        run: async () => {
          for (const iccid of iccids) await network.attach(iccid, { country: 'DE' });
          await deliver();
        },
      },
    ];
    print(`space on ${kind}: ${count} of each; bytes per unit`);
    let before = await relations(kind, db);
    const fileBefore = await db0.bytes(db);
    let file = fileBefore;
    for (const step of steps) {
      await step.run();
      const after = await relations(kind, db);
      const fileAfter = await db0.bytes(db);
      const { lines, total } = growth(before, after, count);
      print(
        `\n${step.label}: ${total.toFixed(0)} bytes per ${step.unit} in tables and indexes; the whole database, the journal too, ${((fileAfter - file) / count).toFixed(0)}`,
      );
      print(`| table, then its indexes | bytes per ${step.unit} | of which |`);
      print('| --- | ---: | ---: |');
      for (const line of lines) print(line);
      before = after;
      file = fileAfter;
    }
  } finally {
    await app.close();
    await services.close();
    await receiver.kill('SIGTERM');
    const kept = await dropUnlessKept(db0);
    if (kept !== undefined) print(kept);
  }
}

await main();
