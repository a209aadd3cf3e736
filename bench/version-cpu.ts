// Benchmark: the server CPU one request costs on /v2.5 against the same request on /v2.1, for
// GET /esims/{iccid}, POST /orders (one unit into inventory, a real order) and a catalogue page
// (countries=FR, 50 bundles; with the answer cache on, the default, and off). Target: /v2.5 costs
// at most 10 % more per request than /v2.1.
//
// One process holds the service (buildApp on the real dependencies, simulator mode, a fresh
// SQLite file, the built-in catalogue) and measures its own CPU (process.cpuUsage(), user +
// system, every thread of the process) around blocks of requests. The requests come over real
// sockets from a child process (version-cpu-client.ts), whose CPU is not counted; app.inject
// would add light-my-request's handling of each answer to both versions, several times the
// service's own work on a catalogue page. After a warm-up of every operation on both versions,
// each operation's block is sized to about the same CPU; then, operation by operation, each round
// measures one block of each version, one right after the other: 2.1 then 2.5, and 2.5 then 2.1
// on the next round (ABBA). Reported per operation: the median CPU per request of each version,
// the ratio of the medians and of the minimums, and the median and interquartile range of the
// per-round ratios (each round's two blocks ran next to each other, so load that drifts over the
// run cancels out of them). The target is judged on the median per-round ratio. See
// bench/README.md.
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { BUILT_IN_GROUPS } from '../src/domain/catalogue/naming.js';
import { openAccount } from '../src/domain/money/ledger.js';
import { createOrganisation } from '../src/domain/organisations/organisation-changes.js';
import { openServices } from '../src/main.js';
import { envInteger, median, num, quantile } from './figures.js';
import type { Block, BlockDone } from './version-cpu-client.js';

const TARGET = 1.1;
const VERSIONS = ['2.1', '2.5'] as const;
type Version = (typeof VERSIONS)[number];

interface Service {
  readonly apiKey: string;
  readonly iccid: string;
  readonly bundle: string;
  /** The app as configured (catalogue answer cache on), and one with the cache off. */
  readonly apps: { readonly cached: FastifyInstance; readonly uncached: FastifyInstance };
  close(): Promise<void>;
}

interface Operation {
  readonly key: string;
  readonly name: string;
  readonly app: 'cached' | 'uncached';
  readonly method: 'GET' | 'POST';
  readonly path: (service: Service) => string;
  readonly body?: (service: Service) => string;
}

const CATALOGUE_PAGE = '/catalogue?countries=FR&perPage=50';

const OPERATIONS: readonly Operation[] = [
  {
    key: 'esim',
    name: 'GET /esims/{iccid}',
    app: 'cached',
    method: 'GET',
    path: (s) => `/esims/${s.iccid}`,
  },
  {
    key: 'orders',
    name: 'POST /orders (one unit into inventory)',
    app: 'cached',
    method: 'POST',
    path: () => '/orders',
    body: (s) =>
      JSON.stringify({
        type: 'transaction',
        assign: false,
        order: [{ type: 'bundle', item: s.bundle, quantity: 1 }],
      }),
  },
  {
    key: 'catalogue',
    name: 'GET /catalogue (50 bundles, answer cache on)',
    app: 'cached',
    method: 'GET',
    path: () => CATALOGUE_PAGE,
  },
  {
    key: 'catalogue-uncached',
    name: 'GET /catalogue (50 bundles, answer cache off)',
    app: 'uncached',
    method: 'GET',
    path: () => CATALOGUE_PAGE,
  },
];

// --- the service

async function openService(): Promise<Service> {
  const dir = mkdtempSync(join(tmpdir(), 'esim-bench-version-cpu-'));
  const config = loadConfig({
    MODE: 'simulator',
    DATABASE_URL: `sqlite:${join(dir, 'bench.sqlite')}`,
    DATA_DIR: dir,
    MASTER_KEY: randomBytes(32).toString('hex'),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
    DEMO_ON_FIRST_START: 'false',
  });
  // As the server opens them: SQLite checkpoints on their worker thread.
  const services = await openServices(config, { checkpointThread: true });
  const { deps } = services;
  const org = await createOrganisation(
    { db: deps.store.db, clock: deps.clock, random: deps.random, cipher: deps.cipher },
    { name: 'Benchmark Org', groups: BUILT_IN_GROUPS },
    (trx, created) =>
      // Enough for every order of a long run.
      openAccount(trx, { organisationId: created.id, balance: 1e12, at: deps.clock.now() }),
  );
  const cached = await buildApp(deps);
  const uncached = await buildApp({
    ...deps,
    config: { ...config, catalogueCacheEntries: 0, catalogueStalenessMs: 0 },
  });
  const headers = { 'x-api-key': org.apiKey, 'content-type': 'application/json' };
  const call = async (method: 'GET' | 'POST', url: string, body?: unknown): Promise<unknown> => {
    const res = await cached.inject({
      method,
      url,
      headers,
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    if (res.statusCode !== 200) throw new Error(`${method} ${url} answered ${res.statusCode}`);
    return res.json();
  };
  // An eSIM as integrations read it: one bundle assigned by an order, the profile installed.
  const page = (await call('GET', `/v2.1${CATALOGUE_PAGE}`)) as { name: string }[];
  const bundle = page[0]?.name;
  if (bundle === undefined) throw new Error('the catalogue page is empty');
  const order = (await call('POST', '/v2.1/orders', {
    type: 'transaction',
    assign: true,
    order: [{ type: 'bundle', item: bundle, quantity: 1 }],
  })) as { order: { esims: { iccid: string }[] }[] };
  const iccid = order.order[0]?.esims[0]?.iccid;
  if (iccid === undefined) throw new Error('the order assigned no eSIM');
  await call('POST', `/_sim/esims/${iccid}/install`, {});
  // What POST /orders measures is a placed order on either version.
  for (const version of VERSIONS) {
    const placed = (await call('POST', `/v${version}/orders`, {
      type: 'transaction',
      assign: false,
      order: [{ type: 'bundle', item: bundle, quantity: 1 }],
    })) as { status?: string };
    if (placed.status !== 'completed') throw new Error(`v${version}: the order was not placed`);
  }
  return {
    apiKey: org.apiKey,
    iccid,
    bundle,
    apps: { cached, uncached },
    async close() {
      await cached.close();
      await uncached.close();
      await services.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// --- the requests: a child process sends each block over keep-alive sockets

interface Transport {
  block(op: Operation, version: Version, count: number): Promise<BlockDone>;
  close(): Promise<void>;
}

const requestOf = (service: Service, op: Operation, version: Version) => ({
  method: op.method,
  path: `/v${version}${op.path(service)}`,
  headers: { 'x-api-key': service.apiKey, 'content-type': 'application/json' },
  body: op.body?.(service),
});

async function socketTransport(service: Service, concurrency: number): Promise<Transport> {
  const urls = {
    cached: await service.apps.cached.listen({ port: 0, host: '127.0.0.1' }),
    uncached: await service.apps.uncached.listen({ port: 0, host: '127.0.0.1' }),
  };
  const script = fileURLToPath(new URL('./version-cpu-client.ts', import.meta.url));
  // Plain node with tsx, whatever flags this process was started with.
  const child: ChildProcess = fork(script, [], { execArgv: ['--import', 'tsx'] });
  return {
    async block(op, version, count) {
      const { method, path, headers, body } = requestOf(service, op, version);
      const block: Block = {
        url: `${urls[op.app]}${path}`,
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        status: 200,
        count,
        concurrency,
      };
      const done = once(child, 'message') as Promise<[BlockDone]>;
      child.send(block);
      const [result] = await done;
      return result;
    },
    async close() {
      child.disconnect();
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

/** The CPU this process has used (user + system, every thread), in µs. */
function cpuMicros(): number {
  const used = process.cpuUsage();
  return used.user + used.system;
}

// --- figures

export interface VersionCpuOptions {
  readonly rounds: number;
  /** Requests per block, the same for every operation; else sized by `block`. */
  readonly requests?: number;
  /** The CPU a block should cost, in µs. */
  readonly block: number;
  readonly warmup: number;
  readonly concurrency: number;
  readonly operations: readonly string[];
  readonly print: (line: string) => void;
}

interface Figures {
  readonly op: Operation;
  readonly count: number;
  readonly perRequest: Record<Version, number[]>;
}

export async function runVersionCpuBenchmark(options: VersionCpuOptions): Promise<boolean> {
  const { rounds, warmup, concurrency, print } = options;
  const operations = OPERATIONS.filter(
    (op) => options.operations.length === 0 || options.operations.includes(op.key),
  );
  const service = await openService();
  const transport = await socketTransport(service, concurrency);
  const loads: number[] = [loadavg()[0] ?? NaN];
  const began = performance.now();
  try {
    const send = async (op: Operation, version: Version, count: number): Promise<void> => {
      const done = await transport.block(op, version, count);
      if (done.failed > 0) {
        throw new Error(
          `${op.name} on v${version}: ${done.failed} of ${count} failed (${done.firstFailure})`,
        );
      }
    };
    // Warm-up: every operation on both versions, compiled and its caches filled.
    for (const op of operations) {
      for (const version of VERSIONS) await send(op, version, warmup);
    }
    /** CPU per request of a block. */
    const measure = async (op: Operation, version: Version, count: number): Promise<number> => {
      const from = cpuMicros();
      await send(op, version, count);
      const used = cpuMicros() - from;
      loads.push(loadavg()[0] ?? NaN);
      return used / count;
    };
    // Block sizes: what one request of each operation costs, from a short probe of both versions,
    // so that every block costs about the same (a cheap request's block is not a handful of
    // milliseconds that one collection of the heap doubles).
    const figures: Figures[] = [];
    for (const op of operations) {
      let count = options.requests;
      if (count === undefined) {
        const probe = Math.max(20, Math.round(warmup / 10));
        const cost = (await measure(op, '2.1', probe)) + (await measure(op, '2.5', probe));
        count = Math.max(20, Math.round(options.block / (cost / 2)));
      }
      figures.push({ op, count, perRequest: { '2.1': [], '2.5': [] } });
    }
    // One operation's rounds after the other's: a block pays for garbage its neighbours left,
    // and within one operation each version's blocks leave the same.
    for (const { op, count, perRequest } of figures) {
      for (let round = 0; round < rounds; round += 1) {
        const order: readonly Version[] = round % 2 === 0 ? ['2.1', '2.5'] : ['2.5', '2.1'];
        for (const version of order) perRequest[version].push(await measure(op, version, count));
      }
    }
    const seconds = (performance.now() - began) / 1000;
    print(
      `version-cpu: server CPU per request (process.cpuUsage, user + system); requests over a socket from a child process, ` +
        `${concurrency} at a time; for each operation ${rounds} rounds of one block per version (ABBA), ` +
        `after ${warmup} requests of each; SQLite; ${seconds.toFixed(0)} s; ` +
        `load average (1 min) ${Math.min(...loads).toFixed(1)} to ${Math.max(...loads).toFixed(1)}`,
    );
    print(
      `| Operation | Requests per block | v2.1 µs/req | v2.5 µs/req | v2.5 / v2.1 (medians) | (minimums) | per-round v2.5 / v2.1: median (IQR) | Target |`,
    );
    print('| --- | --- | --- | --- | --- | --- | --- | --- |');
    let met = true;
    for (const { op, count, perRequest } of figures) {
      const v21 = perRequest['2.1'];
      const v25 = perRequest['2.5'];
      const ratios = v21.map((a, i) => (v25[i] ?? NaN) / a);
      const perRound = median(ratios);
      const ok = perRound <= TARGET;
      met &&= ok;
      print(
        `| ${op.name} | ${count.toLocaleString('en-US')} | ${num(median(v21))} | ${num(median(v25))} | ` +
          `${(median(v25) / median(v21)).toFixed(3)} | ` +
          `${(Math.min(...v25) / Math.min(...v21)).toFixed(3)} | ` +
          `${perRound.toFixed(3)} (${quantile(ratios, 0.25).toFixed(3)} to ${quantile(ratios, 0.75).toFixed(3)}) | ` +
          `<= ${TARGET} ${ok ? 'PASS' : 'MISS'} |`,
      );
    }
    return met;
  } finally {
    await transport.close();
    await service.close();
  }
}

export function versionCpuOptionsFromEnv(print: (line: string) => void): VersionCpuOptions {
  const operations = (process.env['BENCH_OPERATIONS'] ?? '').split(',').filter((s) => s !== '');
  const unknown = operations.filter((key) => !OPERATIONS.some((op) => op.key === key));
  if (unknown.length > 0) {
    throw new Error(
      `BENCH_OPERATIONS: unknown ${unknown.join(', ')} (${OPERATIONS.map((op) => op.key).join(', ')})`,
    );
  }
  const fixed = process.env['BENCH_REQUESTS'];
  return {
    rounds: envInteger('BENCH_ROUNDS', 20),
    ...(fixed === undefined || fixed === '' ? {} : { requests: envInteger('BENCH_REQUESTS', 1) }),
    // A quarter of a second: several collections of the old generation in every block.
    block: envInteger('BENCH_BLOCK', 250_000),
    warmup: envInteger('BENCH_WARMUP_REQUESTS', 1000),
    concurrency: envInteger('BENCH_CONCURRENCY', 8),
    operations,
    print,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // A measurement, not a test: the exit code is 0 whether the target is met or missed.
  await runVersionCpuBenchmark(versionCpuOptionsFromEnv((line) => console.log(line)));
}
