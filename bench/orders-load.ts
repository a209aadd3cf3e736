// What bench/orders.ts (and the crash test's load) needs around the service: a fresh database
// with the benchmark bundle and funded organisations, the server process, the load itself
// (autocannon, one organisation per connection, an optional unique Idempotency-Key per order),
// the server's CPU time and `esim ledger verify`.
import { randomBytes, randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { iso } from '../src/clock.js';
import { main } from '../src/cli/main.js';
import { loadConfig } from '../src/config.js';
import { saveBundles } from '../src/domain/catalogue/save-bundles.js';
import { openAccount } from '../src/domain/money/ledger.js';
import { createOrganisation } from '../src/domain/organisations/organisation-changes.js';
import { openServices } from '../src/main.js';
import { scratchDatabase } from './scratch-database.js';

export const BUNDLE = 'bench_orders_1GB_7D';
const BIN = fileURLToPath(new URL('../bin/esim.js', import.meta.url));

export function orderBody(assign: boolean): string {
  return JSON.stringify({
    type: 'transaction',
    assign,
    order: [{ type: 'bundle', item: BUNDLE, quantity: 1 }],
  });
}

export interface Target {
  readonly kind: 'sqlite' | 'postgres';
  readonly env: Record<string, string>;
  drop(): Promise<void>;
}

/** A fresh database and data folder for one case; drop() removes both. */
export async function scratchTarget(
  kind: 'sqlite' | 'postgres',
  postgresAdminUrl: string,
): Promise<Target> {
  const database = await scratchDatabase(kind, 'orders', postgresAdminUrl);
  return {
    kind,
    env: { DATABASE_URL: database.url, DATA_DIR: database.dir },
    drop: () => database.drop(),
  };
}

/** The environment of a benchmark server on `target`: simulator mode, quiet, no demo. */
export function serverEnv(
  target: Target,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    MODE: 'simulator',
    MASTER_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
    DEMO_ON_FIRST_START: 'false',
    CATALOGUE_SEED: 'false',
    ...target.env,
    ...extra,
  };
}

/** Migrates, adds the benchmark bundle and funded organisations; returns their API keys. */
export async function prepare(
  env: Record<string, string>,
  organisations: number,
): Promise<string[]> {
  const services = await openServices(loadConfig(env));
  try {
    const { deps } = services;
    const now = deps.clock.now();
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
        iso(now),
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

/**
 * CPU seconds of a process's main thread (its event loop), and bytes it has written with write
 * calls (its WAL frames, checkpoints and answers), from /proc; undefined elsewhere.
 */
function loopAndWrites(pid: number | undefined): { loop: number; written: number } | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const written = /^wchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1];
    if (written === undefined) return undefined;
    return { loop: (Number(fields[11]) + Number(fields[12])) / 100, written: Number(written) };
  } catch {
    return undefined;
  }
}

export interface Server {
  readonly url: string;
  cpu(): number | undefined;
  /** The event loop's CPU seconds and the bytes written so far (Linux). */
  loopAndWrites(): { loop: number; written: number } | undefined;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function startServer(
  env: Record<string, string>,
  args: readonly string[] = [BIN, 'serve'],
): Promise<Server> {
  // BENCH_NODE_ARGS: extra Node.js options for the server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/p".
  const nodeArgs = (process.env['BENCH_NODE_ARGS'] ?? '').split(' ').filter((a) => a !== '');
  const child = spawn(process.execPath, [...nodeArgs, ...args], {
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
    loopAndWrites: () => loopAndWrites(child.pid),
    async stop(signal = 'SIGTERM') {
      child.kill(signal);
      await exited;
    },
  };
}

export interface Load {
  readonly apiKeys: readonly string[];
  readonly body: string;
  /** A fresh Idempotency-Key on every request. */
  readonly idempotencyKeys: boolean;
  readonly connections: number;
}

/** The load for `seconds`: connection i orders for organisation i (modulo their number). */
export function measure(url: string, load: Load, seconds: number) {
  let next = 0;
  return autocannon({
    url: `${url}/v2.1/orders`,
    method: 'POST',
    connections: load.connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        setupRequest: (request, context: object) => {
          const client = context as { key?: string };
          if (client.key === undefined) {
            client.key = load.apiKeys[next % load.apiKeys.length] ?? '';
            next += 1;
          }
          const headers: Record<string, string> = {
            'content-type': 'application/json',
            'x-api-key': client.key,
          };
          if (load.idempotencyKeys) headers['idempotency-key'] = randomUUID();
          return { ...request, headers, body: load.body };
        },
      },
    ],
  });
}

export async function ledgerVerify(
  env: Record<string, string>,
): Promise<{ ok: boolean; line: string }> {
  const lines: string[] = [];
  const code = await main(['ledger', 'verify'], env, {
    out: (line) => lines.push(line),
    err: (line) => lines.push(line),
  });
  return { ok: code === 0, line: lines.join('; ') };
}
