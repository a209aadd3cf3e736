// Benchmark: POST /v2.1/orders (type transaction, one unit of one bundle) against the real server
// process (`esim serve`, simulator mode, workers running), 32 connections, in seven cases:
// SQLite with 32 organisations (one per connection) and with one organisation; SQLite with a
// unique Idempotency-Key on every order; SQLite with assign: true (a new eSIM per order);
// PostgreSQL with 32 organisations, with one, and with assign: true. Each case runs on a fresh database, is followed
// in the same run by its baseline (a bare Fastify route answering the very bytes the service
// answered, same requests and headers), and ends with `esim ledger verify`.
// BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 2), BENCH_POSTGRES_URL (an admin URL;
// default postgres://postgres@127.0.0.1:5432/postgres; "off" skips PostgreSQL), BENCH_CASES
// (comma-separated case names, default all), BENCH_SERVER_ENV (extra server settings, e.g.
// "GROUP_COMMIT=false"), BENCH_COMPARE_GROUP_COMMIT=1 (each case again with GROUP_COMMIT=false,
// right after it, in the same run).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Load, Target } from './orders-load.js';
import {
  ledgerVerify,
  measure,
  orderBody,
  prepare,
  scratchTarget,
  serverEnv,
  startServer,
} from './orders-load.js';

const CONNECTIONS = 32;
const P99_TARGET_MS = 50;
const BASELINE = fileURLToPath(new URL('./orders-baseline-server.ts', import.meta.url));

interface Case {
  readonly name: string;
  readonly database: 'sqlite' | 'postgres';
  readonly organisations: number;
  readonly idempotencyKeys: boolean;
  readonly assign: boolean;
  /** Orders per second to reach. */
  readonly target: number;
}

export const CASES: readonly Case[] = [
  {
    name: 'sqlite-32',
    database: 'sqlite',
    organisations: 32,
    idempotencyKeys: false,
    assign: false,
    target: 7500,
  },
  {
    name: 'sqlite-1',
    database: 'sqlite',
    organisations: 1,
    idempotencyKeys: false,
    assign: false,
    target: 7500,
  },
  {
    name: 'sqlite-idem',
    database: 'sqlite',
    organisations: 32,
    idempotencyKeys: true,
    assign: false,
    target: 6000,
  },
  {
    name: 'sqlite-assign',
    database: 'sqlite',
    organisations: 32,
    idempotencyKeys: false,
    assign: true,
    target: 4000,
  },
  {
    name: 'postgres-32',
    database: 'postgres',
    organisations: 32,
    idempotencyKeys: false,
    assign: false,
    target: 2500,
  },
  {
    name: 'postgres-1',
    database: 'postgres',
    organisations: 1,
    idempotencyKeys: false,
    assign: false,
    target: 1500,
  },
  {
    name: 'postgres-assign',
    database: 'postgres',
    organisations: 32,
    idempotencyKeys: false,
    assign: true,
    target: 1300,
  },
];

export interface OrdersBenchOptions {
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly postgresAdminUrl: string | undefined;
  readonly cases: readonly string[] | undefined;
  readonly serverEnv: Record<string, string>;
  /** Each case again without group commit, right after it (BENCH_COMPARE_GROUP_COMMIT=1). */
  readonly compareWithoutGroupCommit: boolean;
  readonly print: (line: string) => void;
}

interface Row {
  readonly name: string;
  readonly rate: number;
  readonly p50: number;
  readonly p99: number;
  readonly bare: number;
  readonly bareP99: number;
  readonly cpuPerOrderUs: number | undefined;
  /** The event loop's share of it (the server's main thread). */
  readonly loopPerOrderUs: number | undefined;
  /** Bytes the server wrote per order: mostly its WAL frames and checkpoints on SQLite. */
  readonly writtenPerOrderKiB: number | undefined;
  readonly failures: number;
  readonly ledgerOk: boolean;
  readonly met: boolean;
  readonly target: number;
}

function describeCase(c: Case): string {
  const orgs = c.organisations === 1 ? '1 organisation' : `${c.organisations} organisations`;
  const extra = [c.idempotencyKeys ? 'Idempotency-Key' : '', c.assign ? 'assign: true' : '']
    .filter((s) => s !== '')
    .join(', ');
  return `${c.database}, ${orgs}${extra === '' ? '' : `, ${extra}`}`;
}

/** One real answer of the service to the case's request: the bytes the bare route will send. */
async function sampleAnswer(url: string, load: Load): Promise<string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-api-key': load.apiKeys[0] ?? '',
  };
  if (load.idempotencyKeys) headers['idempotency-key'] = `bench-sample-${Date.now()}`;
  const res = await fetch(`${url}/v2.1/orders`, { method: 'POST', headers, body: load.body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`sample order answered ${res.status}: ${text}`);
  return text;
}

async function runBare(answer: string, load: Load, options: OrdersBenchOptions) {
  const dir = mkdtempSync(join(tmpdir(), 'esim-bench-bare-'));
  const file = join(dir, 'answer.json');
  writeFileSync(file, answer);
  const server = await startServer({ BARE_RESPONSE_FILE: file }, ['--import', 'tsx', BASELINE]);
  try {
    await measure(server.url, load, options.warmupSeconds);
    return await measure(server.url, load, options.durationSeconds);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runCase(c: Case, target: Target, options: OrdersBenchOptions): Promise<Row> {
  const env = serverEnv(target, options.serverEnv);
  const apiKeys = await prepare(env, c.organisations);
  const load: Load = {
    apiKeys,
    body: orderBody(c.assign),
    idempotencyKeys: c.idempotencyKeys,
    connections: CONNECTIONS,
  };
  const server = await startServer(env);
  let result;
  let answer: string;
  let cpu: number | undefined;
  let loop: { loop: number; written: number } | undefined;
  try {
    answer = await sampleAnswer(server.url, load);
    await measure(server.url, load, options.warmupSeconds);
    const before = server.cpu();
    const loopBefore = server.loopAndWrites();
    result = await measure(server.url, load, options.durationSeconds);
    const after = server.cpu();
    const loopAfter = server.loopAndWrites();
    cpu = before === undefined || after === undefined ? undefined : after - before;
    loop =
      loopBefore === undefined || loopAfter === undefined
        ? undefined
        : {
            loop: loopAfter.loop - loopBefore.loop,
            written: loopAfter.written - loopBefore.written,
          };
  } finally {
    await server.stop();
  }
  const verify = await ledgerVerify(env);
  const bare = await runBare(answer, load, options);
  const rate = result.requests.average;
  const failures = result.non2xx + result.errors;
  return {
    name: describeCase(c),
    rate,
    p50: result.latency.p50,
    p99: result.latency.p99,
    bare: bare.requests.average,
    bareP99: bare.latency.p99,
    cpuPerOrderUs:
      cpu === undefined || result.requests.total === 0
        ? undefined
        : (cpu * 1e6) / result.requests.total,
    loopPerOrderUs:
      loop === undefined || result.requests.total === 0
        ? undefined
        : (loop.loop * 1e6) / result.requests.total,
    writtenPerOrderKiB:
      loop === undefined || result.requests.total === 0
        ? undefined
        : loop.written / 1024 / result.requests.total,
    failures,
    ledgerOk: verify.ok,
    met: rate >= c.target && result.latency.p99 < P99_TARGET_MS && failures === 0 && verify.ok,
    target: c.target,
  };
}

/** The same case on a fresh database with GROUP_COMMIT=false, in the same run. */
async function runWithoutGroupCommit(c: Case, options: OrdersBenchOptions): Promise<Row> {
  const target = await scratchTarget(c.database, options.postgresAdminUrl ?? '');
  try {
    const off = { ...options, serverEnv: { ...options.serverEnv, GROUP_COMMIT: 'false' } };
    const row = await runCase(c, target, off);
    return { ...row, name: `  same, GROUP_COMMIT=false` };
  } finally {
    await target.drop();
  }
}

function printTable(rows: readonly Row[], print: (line: string) => void): void {
  const header = [
    'case'.padEnd(44),
    'orders/s'.padStart(8),
    'p50 ms'.padStart(7),
    'p99 ms'.padStart(7),
    'bare req/s'.padStart(10),
    'bare p99'.padStart(8),
    'ratio'.padStart(6),
    'CPU µs/order'.padStart(12),
    'loop µs'.padStart(7),
    'KiB/order'.padStart(9),
    'target'.padStart(7),
    'ledger',
    'result',
  ].join(' | ');
  print(header);
  print('-'.repeat(header.length));
  for (const r of rows) {
    print(
      [
        r.name.padEnd(44),
        r.rate.toFixed(0).padStart(8),
        r.p50.toFixed(1).padStart(7),
        r.p99.toFixed(1).padStart(7),
        r.bare.toFixed(0).padStart(10),
        r.bareP99.toFixed(1).padStart(8),
        (r.rate / r.bare).toFixed(2).padStart(6),
        (r.cpuPerOrderUs === undefined ? '-' : r.cpuPerOrderUs.toFixed(0)).padStart(12),
        (r.loopPerOrderUs === undefined ? '-' : r.loopPerOrderUs.toFixed(0)).padStart(7),
        (r.writtenPerOrderKiB === undefined ? '-' : r.writtenPerOrderKiB.toFixed(1)).padStart(9),
        `>=${r.target}`.padStart(7),
        (r.ledgerOk ? 'ok' : 'FAIL').padEnd(6),
        (r.met ? 'PASS' : 'MISS') + (r.failures > 0 ? ` (${r.failures} failed)` : ''),
      ].join(' | '),
    );
  }
}

export async function runOrdersBenchmark(options: OrdersBenchOptions): Promise<boolean> {
  const settings = Object.entries(options.serverEnv).map(([k, v]) => `${k}=${v}`);
  options.print(
    `orders: POST /v2.1/orders (transaction, 1 unit), ${CONNECTIONS} connections, ` +
      `${options.durationSeconds} s after ${options.warmupSeconds} s warm-up; targets also need ` +
      `p99 < ${P99_TARGET_MS} ms, no failed request and a clean ledger` +
      (settings.length > 0 ? `; server ${settings.join(' ')}` : ''),
  );
  const rows: Row[] = [];
  for (const c of CASES) {
    if (options.cases !== undefined && !options.cases.includes(c.name)) continue;
    if (c.database === 'postgres' && options.postgresAdminUrl === undefined) {
      options.print(`  ${c.name} skipped (BENCH_POSTGRES_URL=off)`);
      continue;
    }
    const target = await scratchTarget(c.database, options.postgresAdminUrl ?? '');
    try {
      rows.push(await runCase(c, target, options));
    } finally {
      await target.drop();
    }
    if (options.compareWithoutGroupCommit) rows.push(await runWithoutGroupCommit(c, options));
  }
  printTable(rows, options.print);
  return rows.every((r) => r.met);
}

function envSeconds(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}

function envPairs(raw: string | undefined): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const part of (raw ?? '').split(/\s+/).filter((p) => p !== '')) {
    const [key, ...value] = part.split('=');
    if (key === undefined || key === '' || value.length === 0) {
      throw new Error(`BENCH_SERVER_ENV: "${part}" is not KEY=value`);
    }
    pairs[key] = value.join('=');
  }
  return pairs;
}

export function ordersBenchOptionsFromEnv(print: (line: string) => void): OrdersBenchOptions {
  const pgUrl =
    process.env['BENCH_POSTGRES_URL'] ??
    process.env['TEST_POSTGRES_URL'] ??
    'postgres://postgres@127.0.0.1:5432/postgres';
  const cases = process.env['BENCH_CASES'];
  return {
    durationSeconds: envSeconds('BENCH_DURATION', 10),
    warmupSeconds: envSeconds('BENCH_WARMUP', 2),
    postgresAdminUrl: pgUrl === 'off' ? undefined : pgUrl,
    cases: cases === undefined || cases === '' ? undefined : cases.split(','),
    serverEnv: envPairs(process.env['BENCH_SERVER_ENV']),
    compareWithoutGroupCommit: process.env['BENCH_COMPARE_GROUP_COMMIT'] === '1',
    print,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runOrdersBenchmark(ordersBenchOptionsFromEnv((line) => console.log(line)));
}
