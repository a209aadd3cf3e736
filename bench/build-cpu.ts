// Benchmark: the server CPU one request costs on two builds of the service, measured in the same
// run, for the requests of bench/orders.ts and bench/reads.ts: POST /v2.1/orders (one unit into
// inventory, a real order), GET /v2.1/esims/{iccid} and a catalogue page with the answer cache off.
// A change that should cost nothing (a refactoring) is judged on it: target, the second build
// within 3 % of the first.
//
//   npx tsx bench/build-cpu.ts <tree A> <tree B>      (each tree built: npm run build)
//
// Each build runs as its own server (`node <tree>/dist/esim.js serve`, production mode or, with
// BENCH_MODE=simulator, simulator mode, a fresh database, an organisation made by that build's
// `esim org create`). The CPU of a block is read from the server's threads in /proc (schedstat:
// nanoseconds on a core), so neither the client nor the other server is counted. A child process (version-cpu-client.ts) sends each block over
// keep-alive sockets. After a warm-up, each operation runs `rounds` rounds of one block per build,
// A then B, then B then A on the next round (ABBA); the target is judged on the median of the
// per-round ratios B / A, which cancels load that drifts over the run. See bench/README.md.
import { fork, spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { envInteger, median, num, ratioCell } from './figures.js';
import type { Block, BlockDone } from './version-cpu-client.js';

const TARGET = 1.03;
const CATALOGUE_PAGE = '/v2.1/catalogue?countries=FR&perPage=50';

export interface Server {
  readonly name: string;
  readonly pid: number;
  readonly url: string;
  readonly apiKey: string;
  readonly iccid: string;
  readonly bundle: string;
  close(): Promise<void>;
}

interface Operation {
  readonly key: string;
  readonly name: string;
  readonly method: 'GET' | 'POST';
  readonly path: (server: Server) => string;
  readonly body?: (server: Server) => string;
}

const OPERATIONS: readonly Operation[] = [
  {
    key: 'orders',
    name: 'POST /v2.1/orders (one unit into inventory)',
    method: 'POST',
    path: () => '/v2.1/orders',
    body: (s) =>
      JSON.stringify({
        type: 'transaction',
        assign: false,
        order: [{ type: 'bundle', item: s.bundle, quantity: 1 }],
      }),
  },
  {
    key: 'esim',
    name: 'GET /v2.1/esims/{iccid}',
    method: 'GET',
    path: (s) => `/v2.1/esims/${s.iccid}`,
  },
  {
    key: 'catalogue',
    name: 'GET /v2.1/catalogue (50 bundles, cache off)',
    method: 'GET',
    path: () => CATALOGUE_PAGE,
  },
];

// --- the servers

export async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Nanoseconds the process's threads have spent on a core, from /proc/<pid>/task/* /schedstat. */
export function cpuNanos(pid: number): number {
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return total;
}

function databaseUrl(kind: string, dir: string, name: string): string {
  if (kind === 'sqlite') return `sqlite:${join(dir, 'bench.sqlite')}`;
  const database = `esim_bench_build_${name}`;
  for (const sql of [`DROP DATABASE IF EXISTS ${database}`, `CREATE DATABASE ${database}`]) {
    const run = spawnSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-qc', sql], {
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(`psql: ${run.stderr}`);
  }
  return `postgres://postgres@127.0.0.1:5432/${database}`;
}

/** How a server runs: its mode, and whether the catalogue's answer cache is on. */
export interface ServerSettings {
  readonly mode: 'production' | 'simulator';
  readonly catalogueCache: boolean;
}

export async function startServer(
  tree: string,
  name: string,
  database: string,
  settings: ServerSettings = { mode: 'production', catalogueCache: false },
): Promise<Server> {
  const entry = join(tree, 'dist', 'esim.js');
  const dir = mkdtempSync(join(tmpdir(), `esim-bench-build-${name}-`));
  const port = await freePort();
  const env = {
    ...process.env,
    MODE: settings.mode,
    DEMO_ON_FIRST_START: 'false',
    DATABASE_URL: databaseUrl(database, dir, name),
    DATA_DIR: dir,
    MASTER_KEY: randomBytes(32).toString('hex'),
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RATE_LIMIT: 'false',
    ...(settings.catalogueCache
      ? {}
      : { CATALOGUE_CACHE_ENTRIES: '0', CATALOGUE_STALENESS_MS: '0' }),
    CATALOGUE_SEED: 'true',
  };
  const cli = (args: string[]): string => {
    const run = spawnSync(process.execPath, [entry, ...args], { env, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`${name}: esim ${args.join(' ')}: ${run.stderr}`);
    return run.stdout;
  };
  cli(['migrate']);
  // BENCH_NODE_ARGS: extra Node.js options for the server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/p".
  const nodeArgs = (process.env['BENCH_NODE_ARGS'] ?? '').split(' ').filter((a) => a !== '');
  const child = spawn(process.execPath, [...nodeArgs, entry, 'serve'], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries += 1) {
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) break;
    } catch {
      // Not listening yet.
    }
    if (child.exitCode !== null || tries > 600)
      throw new Error(`${name}: the server did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const created = JSON.parse(
    cli([
      'org',
      'create',
      '--name',
      'Benchmark Org',
      '--balance',
      '1000000000000',
      '--groups',
      'Standard eSIM Bundles',
      '--no-card',
      '--json',
    ])
      .trim()
      .split('\n')
      .pop() ?? '{}',
  ) as { apiKey?: string };
  if (created.apiKey === undefined) throw new Error(`${name}: org create printed no key`);
  const headers = { 'x-api-key': created.apiKey, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (res.status !== 200)
      throw new Error(`${name}: ${method} ${path} answered ${res.status} ${await res.text()}`);
    return res.json();
  };
  const page = (await call('GET', CATALOGUE_PAGE)) as { name: string }[];
  const bundle = page[0]?.name;
  if (bundle === undefined) throw new Error(`${name}: the catalogue page is empty`);
  const order = (await call('POST', '/v2.1/orders', {
    type: 'transaction',
    assign: true,
    order: [{ type: 'bundle', item: bundle, quantity: 1 }],
  })) as { order: { esims: { iccid: string }[] }[] };
  const iccid = order.order[0]?.esims[0]?.iccid;
  if (iccid === undefined) throw new Error(`${name}: the order assigned no eSIM`);
  return {
    name,
    pid: child.pid ?? 0,
    url,
    apiKey: created.apiKey,
    iccid,
    bundle,
    async close() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// --- the run

export interface BuildCpuOptions {
  readonly trees: readonly [string, string];
  readonly database: 'sqlite' | 'postgres';
  readonly rounds: number;
  /** The server CPU a block should cost, in µs. */
  readonly block: number;
  readonly warmup: number;
  readonly concurrency: number;
  readonly operations: readonly string[];
  /** The mode both servers run in (production unless told). */
  readonly mode?: 'production' | 'simulator';
  readonly print: (line: string) => void;
}

export async function runBuildCpuBenchmark(options: BuildCpuOptions): Promise<boolean> {
  const { rounds, warmup, concurrency, print } = options;
  const operations = OPERATIONS.filter(
    (op) => options.operations.length === 0 || options.operations.includes(op.key),
  );
  const settings = { mode: options.mode ?? 'production', catalogueCache: false } as const;
  const servers = [
    await startServer(options.trees[0], 'a', options.database, settings),
    await startServer(options.trees[1], 'b', options.database, settings),
  ] as const;
  const client: ChildProcess = fork(
    fileURLToPath(new URL('./version-cpu-client.ts', import.meta.url)),
    [],
    {
      execArgv: ['--import', 'tsx'],
    },
  );
  const loads: number[] = [loadavg()[0] ?? NaN];
  const began = performance.now();
  try {
    const send = async (op: Operation, server: Server, count: number): Promise<void> => {
      const body = op.body?.(server);
      const block: Block = {
        url: `${server.url}${op.path(server)}`,
        method: op.method,
        headers: { 'x-api-key': server.apiKey, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body }),
        status: 200,
        count,
        concurrency,
      };
      const answered = once(client, 'message') as Promise<[BlockDone]>;
      client.send(block);
      const [done] = await answered;
      if (done.failed > 0) {
        throw new Error(
          `${op.name} on ${server.name}: ${done.failed} of ${count} failed (${done.firstFailure})`,
        );
      }
    };
    /** Server CPU per request of a block, µs. */
    const measure = async (op: Operation, server: Server, count: number): Promise<number> => {
      const from = cpuNanos(server.pid);
      await send(op, server, count);
      const used = cpuNanos(server.pid) - from;
      loads.push(loadavg()[0] ?? NaN);
      return used / 1000 / count;
    };
    for (const op of operations) for (const server of servers) await send(op, server, warmup);
    const figures: { op: Operation; count: number; perRequest: [number[], number[]] }[] = [];
    for (const op of operations) {
      const probe = Math.max(20, Math.round(warmup / 10));
      const cost = (await measure(op, servers[0], probe)) + (await measure(op, servers[1], probe));
      figures.push({
        op,
        count: Math.max(20, Math.round(options.block / (cost / 2))),
        perRequest: [[], []],
      });
    }
    for (const { op, count, perRequest } of figures) {
      for (let round = 0; round < rounds; round += 1) {
        const order = round % 2 === 0 ? [0, 1] : [1, 0];
        for (const i of order)
          perRequest[i as 0 | 1].push(await measure(op, servers[i as 0 | 1], count));
      }
    }
    const seconds = (performance.now() - began) / 1000;
    print(
      `build-cpu: server CPU per request (/proc schedstat, every thread); A = ${resolve(options.trees[0])}, ` +
        `B = ${resolve(options.trees[1])}; ${options.database}; ${settings.mode} mode; ${concurrency} requests at a time ` +
        `from a child process; ${rounds} rounds of one block per build (ABBA) after ${warmup} requests of each; ` +
        `${seconds.toFixed(0)} s; load average (1 min) ${Math.min(...loads).toFixed(1)} to ${Math.max(...loads).toFixed(1)}`,
    );
    print(
      '| Operation | Requests per block | A µs/req | B µs/req | per-round B / A: median (IQR) | Target |',
    );
    print('| --- | --- | --- | --- | --- | --- |');
    let met = true;
    for (const { op, count, perRequest } of figures) {
      const [a, b] = perRequest;
      const ratio = ratioCell(a, b);
      const ok = ratio.median <= TARGET;
      met &&= ok;
      print(
        `| ${op.name} | ${count.toLocaleString('en-US')} | ${num(median(a))} | ${num(median(b))} | ` +
          `${ratio.text} | <= ${TARGET} ${ok ? 'PASS' : 'MISS'} |`,
      );
    }
    return met;
  } finally {
    client.disconnect();
    for (const server of servers) await server.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [a, b] = process.argv.slice(2);
  const database = process.env['BENCH_DATABASE'] ?? 'sqlite';
  if (a === undefined || b === undefined || (database !== 'sqlite' && database !== 'postgres')) {
    console.error(
      'usage: [BENCH_DATABASE=sqlite|postgres] npx tsx bench/build-cpu.ts <tree A> <tree B>',
    );
    process.exit(2);
  }
  // A measurement, not a test: the exit code is 0 whether the target is met or missed.
  await runBuildCpuBenchmark({
    trees: [a, b],
    database,
    rounds: envInteger('BENCH_ROUNDS', 20),
    block: envInteger('BENCH_BLOCK', 500_000),
    warmup: envInteger('BENCH_WARMUP_REQUESTS', 2000),
    concurrency: envInteger('BENCH_CONCURRENCY', 8),
    operations: (process.env['BENCH_OPERATIONS'] ?? '').split(',').filter((s) => s !== ''),
    mode: process.env['BENCH_MODE'] === 'simulator' ? 'simulator' : 'production',
    print: (line) => console.log(line),
  });
}
