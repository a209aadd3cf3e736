// Benchmark: time from spawning the service to its first 200 on GET /healthz, on an empty data
// directory and on one whose database holds 200,000 orders, for each way of starting it:
//   npm start                     npm → node dist/esim.js serve (npm's own start-up included)
//   node bin/esim.js serve        the package's bin, which imports dist/esim.js
//   node dist/esim.js serve       the launcher and the bundle with its code cache, generated
//                                 validators and serialisers: what a systemd unit or a
//                                 container runs
//   node dist/cli/main.js serve   tsc's output, one module per file, unbundled, schemas
//                                 compiled at start (informative)
//   old: npm → tsx (src)          `npm run esim -- serve`, i.e. the former `npm start`
//                                 (npm → sh → tsx → node src/cli/main.ts serve): the baseline
// Each start is measured BENCH_STARTS times (default 5), the variants interleaved so that
// machine noise spreads over all of them; prints the median and the best of the wall-clock time
// and of the CPU time (user + system of the process tree, which a busy machine inflates less
// than the wall-clock time), the number of processes and their total resident memory at the
// first 200, and the median time to the first 200 on /readyz (the CPU time is read after it).
// Target: compiled start < 300 ms
// on both databases. Needs dist/ (`npm run build`). Linux: reads /proc for processes and memory.
// BENCH_ORDERS (default 200000) sets the size of the large database.
// BENCH_BASE=<dir> (a copy of another build's dist/, e.g. `cp -a dist .base/`) adds
// `node <dir>/esim.js serve`, alternated with the others, to compare two builds in one run.
// Beside the CPU time of the whole process it prints the main thread's (its run time in
// /proc/<pid>/task/<pid>/schedstat, to the nanosecond): on two idle cores the start's wall-clock
// time follows the main thread, while V8's helper threads run beside it.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import SQLite from 'better-sqlite3';
import { main } from '../src/cli/main.js';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/app.js';
import { openServices } from '../src/main.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TARGET_MS = 300;

interface Variant {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly compiled: boolean;
}

const BASE = process.env['BENCH_BASE'];

const VARIANTS: readonly Variant[] = [
  ...(BASE === undefined || BASE === ''
    ? []
    : [
        {
          name: `base: node ${BASE}/esim.js serve`,
          command: process.execPath,
          args: [join(BASE, 'esim.js'), 'serve'],
          compiled: true,
        },
      ]),
  { name: 'npm start', command: 'npm', args: ['start'], compiled: true },
  {
    name: 'node bin/esim.js serve',
    command: process.execPath,
    args: ['bin/esim.js', 'serve'],
    compiled: true,
  },
  {
    name: 'node dist/esim.js serve',
    command: process.execPath,
    args: ['dist/esim.js', 'serve'],
    compiled: true,
  },
  {
    name: 'node dist/cli/main.js serve',
    command: process.execPath,
    args: ['dist/cli/main.js', 'serve'],
    compiled: false,
  },
  {
    name: 'old: npm → tsx (src)',
    command: 'npm',
    args: ['run', 'esim', '--', 'serve'],
    compiled: false,
  },
];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function tree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found = [root];
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (found.includes(ppid) && !found.includes(pid)) {
        found.push(pid);
        grew = true;
      }
    }
  }
  return found;
}

function rssKb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** CPU time (user + system) a process has used so far, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** Run time of a process's main thread so far, in ms (schedstat counts nanoseconds). */
function mainThreadMs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return 0;
  }
}

interface Start {
  ms: number;
  /** To the first 200 on /readyz (every request but /healthz waits for the start to finish). */
  readyMs: number;
  cpuMs: number;
  /** The main thread's share of cpuMs (of the process spawned: node itself but for npm). */
  mainMs: number;
  processes: number;
  rssMb: number;
}

async function startOnce(variant: Variant, dataDir: string): Promise<Start> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(variant.command, [...variant.args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let ms = 0;
  const deadline = started + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${variant.name} exited before answering`);
    if (performance.now() > deadline) throw new Error(`${variant.name} did not answer in 60 s`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      await res.arrayBuffer();
      if (res.status === 200) {
        ms = performance.now() - started;
        break;
      }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  let readyMs = 0;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${variant.name} exited before it was ready`);
    if (performance.now() > deadline) throw new Error(`${variant.name} was not ready in 60 s`);
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    await res.arrayBuffer();
    if (res.status === 200) {
      readyMs = performance.now() - started;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const pids = child.pid === undefined ? [] : tree(child.pid);
  const main = child.pid === undefined ? 0 : mainThreadMs(child.pid);
  const rss = pids.reduce((sum, pid) => sum + rssKb(pid), 0);
  // Processes that already exited (npm's own helpers) are not counted.
  const cpu = pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  // SIGTERM the whole tree from the leaves: npm does not always pass the signal on.
  for (const pid of [...pids].reverse()) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  await exited;
  return {
    ms,
    readyMs,
    cpuMs: cpu,
    mainMs: main,
    processes: pids.length,
    rssMb: Math.round(rss / 1024),
  };
}

/** A data directory whose database holds `orders` orders (with their items and inventory). */
export async function largeDataDir(orders: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'esim-bench-start-'));
  const env = { DATA_DIR: dir, LOG_LEVEL: 'silent', DEMO_ON_FIRST_START: 'false' };
  const lines: string[] = [];
  const io = { out: (l: string) => void lines.push(l), err: (l: string) => void lines.push(l) };
  const code = await main(
    ['org', 'create', '--name', 'Bench Org', '--balance', '100000000', '--json'],
    env,
    io,
  );
  if (code !== 0) throw new Error(lines.join('\n'));
  const { apiKey } = JSON.parse(lines[0] ?? '{}') as { apiKey: string };
  // One real order through the service, then copied in SQL: realistic rows, in seconds.
  const services = await openServices(loadConfig(env));
  const app = await buildApp(services.deps, { logLevel: 'silent' });
  try {
    const catalogue = await app.inject({
      method: 'GET',
      url: '/v2.1/catalogue?perPage=10',
      headers: { 'x-api-key': apiKey },
    });
    const bundle = (catalogue.json() as { name: string }[])[0]?.name;
    const order = await app.inject({
      method: 'POST',
      url: '/v2.1/orders',
      headers: { 'x-api-key': apiKey },
      payload: {
        type: 'transaction',
        assign: false,
        order: [{ type: 'bundle', item: bundle, quantity: 1 }],
      },
    });
    if (order.statusCode !== 200) throw new Error(order.body);
  } finally {
    await app.close();
    await services.close();
  }
  const db = new SQLite(join(dir, 'esim.sqlite'));
  const copies: [table: string, key: string][] = [
    ['orders', 'reference'],
    ['order_items', 'order_reference'],
    ['inventory_batches', 'order_reference'],
  ];
  db.transaction(() => {
    for (const [table, key] of copies) {
      const columns = (db.pragma(`table_info(${table})`) as { name: string; pk: number }[])
        .filter((c) => !(c.pk === 1 && c.name === 'id'))
        .map((c) => c.name);
      const select = columns.map((c) => (c === key ? `${c} || '-' || n.i` : c)).join(', ');
      db.exec(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${orders - 1}) ` +
          `INSERT INTO ${table} (${columns.join(', ')}) SELECT ${select} FROM ${table}, n`,
      );
    }
  })();
  const count = db.prepare('SELECT count(*) AS n FROM orders').get() as { n: number };
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  if (count.n !== orders) throw new Error(`expected ${orders} orders, found ${count.n}`);
  return dir;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? 0)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export async function runStartBenchmark(
  print: (line: string) => void,
  starts = Number(process.env['BENCH_STARTS'] ?? 5),
  orders = Number(process.env['BENCH_ORDERS'] ?? 200_000),
): Promise<boolean> {
  print(`== start: spawn to the first 200 on /healthz, ${starts} starts per variant`);
  const made = performance.now();
  const large = await largeDataDir(orders);
  print(`   database with ${orders} orders prepared in ${Math.round(performance.now() - made)} ms`);
  let met = true;
  try {
    for (const [label, fresh] of [
      ['empty data directory', true],
      [`${orders.toLocaleString('en')} orders`, false],
    ] as const) {
      // BENCH_VARIANTS: some of the variants, by a part of their names (e.g. "dist/esim.js");
      // the BENCH_BASE variant is always kept.
      const chosen = (process.env['BENCH_VARIANTS'] ?? '').split(',').filter((p) => p !== '');
      const variants = VARIANTS.filter(
        (v) =>
          chosen.length === 0 ||
          v.name.startsWith('base: ') ||
          chosen.some((part) => v.name.includes(part)),
      );
      const results = new Map<Variant, Start[]>(variants.map((v) => [v, []]));
      const dirs: string[] = [];
      try {
        for (let i = 0; i < starts; i++) {
          for (const variant of variants) {
            // A fresh start is a first start every time: a new, empty data directory.
            const dir = fresh ? mkdtempSync(join(tmpdir(), 'esim-bench-start-')) : large;
            if (fresh) dirs.push(dir);
            results.get(variant)?.push(await startOnce(variant, dir));
          }
        }
      } finally {
        for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      }
      print(`-- ${label}`);
      for (const [variant, runs] of results) {
        const ms = median(runs.map((r) => r.ms));
        const ready = median(runs.map((r) => r.readyMs));
        const best = Math.min(...runs.map((r) => r.ms));
        const cpu = median(runs.map((r) => r.cpuMs));
        const bestCpu = Math.min(...runs.map((r) => r.cpuMs));
        const mainCpu = median(runs.map((r) => r.mainMs));
        const last = runs.at(-1);
        const verdict = variant.compiled ? (ms < TARGET_MS ? 'PASS' : 'MISS') : '';
        if (variant.compiled && ms >= TARGET_MS) met = false;
        print(
          `   ${variant.name.padEnd(28)} wall median ${Math.round(ms).toString().padStart(5)} ms, ` +
            `best ${Math.round(best).toString().padStart(5)} ms; ` +
            `/readyz median ${Math.round(ready).toString().padStart(5)} ms; ` +
            `CPU median ${cpu.toString().padStart(5)} ms, best ${bestCpu.toString().padStart(5)} ms ` +
            `(main thread ${Math.round(mainCpu).toString().padStart(4)} ms); ` +
            `${last?.processes} processes, ` +
            `${last?.rssMb} MB  ${verdict}`,
        );
      }
    }
  } finally {
    rmSync(large, { recursive: true, force: true });
  }
  print(`   target: compiled start < ${TARGET_MS} ms`);
  return met;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runStartBenchmark((line) => console.log(line));
}
