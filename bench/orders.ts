// Benchmark: POST /v2.1/orders, type transaction, assign: false (into inventory), one bundle per
// order, 32 connections, against the real server process (`esim serve`) on SQLite (a fresh file)
// and on PostgreSQL (a fresh database), then `esim ledger verify` on each database.
// Targets: >= 1,500 orders/s on SQLite, >= 500 orders/s on PostgreSQL, zero ledger difference.
// Each connection orders for its own organisation, as the many tenants of a service do. On
// PostgreSQL a second, informative run puts all connections on one organisation: its balance row
// is locked from the debit to the commit, so that organisation's orders are bounded by the
// database's commit (fsync) latency.
// BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 2), BENCH_POSTGRES_URL (an admin URL;
// default postgres://postgres@127.0.0.1:5432/postgres; "off" skips PostgreSQL).
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { iso } from '../src/clock.js';
import { main } from '../src/cli/main.js';
import { loadConfig } from '../src/config.js';
import { openAccount } from '../src/domain/ledger.js';
import { createOrganisation } from '../src/domain/organisations.js';
import { openServices } from '../src/main.js';
import { saveBundles } from '../src/domain/catalogue/save.js';

const CONNECTIONS = 32;
const BUNDLE = 'bench_orders_1GB_7D';
const TARGETS = { sqlite: 1500, postgres: 500 } as const;
const BIN = fileURLToPath(new URL('../bin/esim.js', import.meta.url));
const ORDER_BODY = JSON.stringify({
  type: 'transaction',
  assign: false,
  order: [{ type: 'bundle', item: BUNDLE, quantity: 1 }],
});

export interface OrdersBenchOptions {
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly postgresAdminUrl: string | undefined;
  readonly print: (line: string) => void;
}

interface Target {
  readonly kind: 'sqlite' | 'postgres';
  readonly env: Record<string, string>;
  drop(): Promise<void>;
}

function sqliteTarget(): Target {
  const dir = mkdtempSync(join(tmpdir(), 'esim-bench-orders-'));
  return {
    kind: 'sqlite',
    env: { DATABASE_URL: `sqlite:${join(dir, 'bench.sqlite')}`, DATA_DIR: dir },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function postgresTarget(adminUrl: string): Promise<Target> {
  const name = `esim_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const dir = mkdtempSync(join(tmpdir(), 'esim-bench-orders-'));
  return {
    kind: 'postgres',
    env: { DATABASE_URL: url.toString(), DATA_DIR: dir },
    async drop() {
      rmSync(dir, { recursive: true, force: true });
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** Migrates, adds the benchmark bundle and organisations with funds for any run; returns their keys. */
async function prepare(env: Record<string, string>, organisations: number): Promise<string[]> {
  const services = await openServices(loadConfig(env));
  try {
    const { deps } = services;
    const now = deps.clock.now();
    const at = iso(now);
    await deps.store.db.transaction().execute((trx) =>
      saveBundles(
        trx,
        [
          {
            name: BUNDLE,
            description: 'Benchmark bundle',
            groups: ['Standard eSIM Bundles'],
            countries: ['GB'],
            roaming: [],
            dataAmount: 1000,
            duration: 7,
            speed: ['4G'],
            autostart: true,
            unlimited: false,
            price: 1,
          },
        ],
        at,
      ),
    );
    const keys: string[] = [];
    for (let i = 0; i < organisations; i += 1) {
      const org = await createOrganisation(
        { db: deps.store.db, clock: deps.clock, random: deps.random, cipher: deps.cipher },
        { name: `Benchmark Org ${i + 1}` },
        (trx, row) =>
          openAccount(trx, {
            organisationId: row.id,
            balance: 1_000_000_000,
            description: 'benchmark funds',
            at: now,
          }),
      );
      keys.push(org.apiKey);
    }
    return keys;
  } finally {
    await services.close();
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc; undefined elsewhere. */
function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces): utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

const BASELINE = fileURLToPath(new URL('./orders-baseline-server.ts', import.meta.url));

async function startServer(
  env: Record<string, string>,
  args: readonly string[] = [BIN, 'serve'],
): Promise<{ url: string; cpu(): number | undefined; stop(): Promise<void> }> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    void exited.then(() => reject(new Error(`server exited before listening:\n${output}`)));
  });
  return {
    url,
    cpu: () => cpuSeconds(child.pid),
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function measure(url: string, apiKeys: readonly string[], seconds: number) {
  let next = 0;
  return autocannon({
    url: `${url}/v2.1/orders`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: ORDER_BODY,
    connections: CONNECTIONS,
    duration: seconds,
    // Connection i orders for organisation i (modulo the number of organisations).
    setupClient: (client) => {
      const key = apiKeys[next % apiKeys.length] ?? '';
      next += 1;
      client.setHeaders({ 'content-type': 'application/json', 'x-api-key': key });
    },
  });
}

async function ledgerVerify(env: Record<string, string>): Promise<{ ok: boolean; line: string }> {
  const lines: string[] = [];
  const code = await main(['ledger', 'verify'], env, {
    out: (line) => lines.push(line),
    err: (line) => lines.push(line),
  });
  return { ok: code === 0, line: lines.join('; ') };
}

async function runOne(
  target: Target,
  options: OrdersBenchOptions,
  organisations: number,
  informative: boolean,
): Promise<boolean> {
  const env = {
    MODE: 'simulator',
    MASTER_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
    DEMO_ON_FIRST_START: 'false',
    CATALOGUE_SEED: 'false',
    ...target.env,
  };
  const apiKeys = await prepare(env, organisations);
  const server = await startServer(env);
  let result;
  let cpuUsed: number | undefined;
  try {
    await measure(server.url, apiKeys, options.warmupSeconds);
    const before = server.cpu();
    result = await measure(server.url, apiKeys, options.durationSeconds);
    const after = server.cpu();
    cpuUsed = before === undefined || after === undefined ? undefined : after - before;
  } finally {
    await server.stop();
  }
  const verify = await ledgerVerify(env);
  const ordersPerSecond = result.requests.average;
  const target2 = TARGETS[target.kind];
  const clean = result.non2xx === 0 && result.errors === 0;
  const met = ordersPerSecond >= target2 && clean && verify.ok;
  const label = `${target.kind}, ${organisations === 1 ? '1 organisation' : `${organisations} organisations`}`;
  options.print(
    `  ${label.padEnd(27)} ${ordersPerSecond.toFixed(0).padStart(6)} orders/s` +
      `   p50 ${result.latency.p50.toFixed(1)} ms   p99 ${result.latency.p99.toFixed(1)} ms` +
      (clean ? '' : `   (${result.non2xx} non-2xx, ${result.errors} errors)`) +
      (informative ? '   (informative)' : `   target >= ${target2}: ${met ? 'PASS' : 'MISS'}`),
  );
  if (cpuUsed !== undefined && result.requests.total > 0) {
    const perOrder = (cpuUsed * 1e6) / result.requests.total;
    // Informative: what one fully available core would sustain at this cost per order.
    options.print(
      `    server CPU ${perOrder.toFixed(0)} µs per order (one core: ~${(1e6 / perOrder).toFixed(0)} orders/s)`,
    );
  }
  options.print(`    esim ledger verify: ${verify.ok ? 'PASS' : 'FAIL'} (${verify.line})`);
  return informative ? verify.ok : met;
}

/** The same requests against a bare route that answers from memory: the machine's HTTP ceiling. */
async function runBaseline(options: OrdersBenchOptions): Promise<void> {
  const server = await startServer({}, ['--import', 'tsx', BASELINE]);
  try {
    await measure(server.url, ['unused'], options.warmupSeconds);
    const result = await measure(server.url, ['unused'], options.durationSeconds);
    options.print(
      `  ${'bare route, same bodies'.padEnd(27)} ${result.requests.average.toFixed(0).padStart(6)} req/s` +
        `      p50 ${result.latency.p50.toFixed(1)} ms   p99 ${result.latency.p99.toFixed(1)} ms   (baseline)`,
    );
  } finally {
    await server.stop();
  }
}

export async function runOrdersBenchmark(options: OrdersBenchOptions): Promise<boolean> {
  options.print(
    `orders: POST /v2.1/orders (transaction, assign: false, 1 unit), ${CONNECTIONS} connections, ` +
      `${options.durationSeconds} s after ${options.warmupSeconds} s warm-up`,
  );
  await runBaseline(options);
  let met = true;
  const sqlite = sqliteTarget();
  try {
    met = (await runOne(sqlite, options, CONNECTIONS, false)) && met;
  } finally {
    await sqlite.drop();
  }
  const adminUrl = options.postgresAdminUrl;
  if (adminUrl === undefined) {
    options.print('  postgres skipped (BENCH_POSTGRES_URL=off)');
    return met;
  }
  for (const [organisations, informative] of [
    [CONNECTIONS, false],
    [1, true],
  ] as const) {
    const postgres = await postgresTarget(adminUrl);
    try {
      met = (await runOne(postgres, options, organisations, informative)) && met;
    } finally {
      await postgres.drop();
    }
  }
  return met;
}

function envSeconds(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}

export function ordersBenchOptionsFromEnv(print: (line: string) => void): OrdersBenchOptions {
  const pgUrl =
    process.env['BENCH_POSTGRES_URL'] ??
    process.env['TEST_POSTGRES_URL'] ??
    'postgres://postgres@127.0.0.1:5432/postgres';
  return {
    durationSeconds: envSeconds('BENCH_DURATION', 10),
    warmupSeconds: envSeconds('BENCH_WARMUP', 2),
    postgresAdminUrl: pgUrl === 'off' ? undefined : pgUrl,
    print,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runOrdersBenchmark(ordersBenchOptionsFromEnv((line) => console.log(line)));
}
