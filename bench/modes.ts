// Benchmark: the simulator against production mode, and both against what the machine does
// without the service, in one run. For GET /v2.1/esims/{iccid}, POST /v2.1/orders (one unit of
// one bundle into inventory) and a catalogue page with the answer cache on (the default), it
// measures, blocks alternated round by round:
//
// - the service of this checkout in simulator mode and in production mode, on SQLite (each its
//   own `node dist/esim.js serve`, fresh database, one organisation made by `esim org create`);
// - the same for an older build, when its tree is given (old and new alternated in the run);
// - a bare node:http server replaying the bytes the service answered (replay-server.ts);
// - for orders, an in-memory order service (orders-memory-peer.ts).
//
//   npx tsx bench/modes.ts [<older tree>]        (each tree built: npm run build)
//
// A block is autocannon for BENCH_BLOCK_SECONDS (default 2) with 32 connections from this
// process; the server's CPU over the block is read from /proc schedstat (every thread of the
// server, not the client). Each round runs one block of every server, in an order that shifts
// by one every round and turns round every other round. Prints the median requests per second
// and CPU per request of each, and the median of the per-round ratios: simulator / production
// of each build, and against the bare server and the in-memory peer, in requests per second
// and (inverted) in CPU per request, which a loaded machine moves less; with an older build,
// its CPU per request over the new build's in the same mode (above 1: the new build costs
// less). Targets: simulator within 5 % of production mode (ratio >= 0.95), orders in simulator
// mode >= 0.6 of the peer.
// BENCH_ROUNDS (default 6), BENCH_OPERATIONS (some of esim, orders, catalogue),
// BENCH_CONNECTIONS (default 32). BENCH_SETS (default 1) runs the whole comparison that many times,
// each with servers of its own, and judges the targets on the median over the sets: one set's
// simulator / production ratio moves by up to ±10 % with its processes, more than between rounds.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { Server } from './build-cpu.js';
import { cpuNanos, startServer } from './build-cpu.js';
import { envInteger, median, num } from './figures.js';
import type { Replayed } from './replay-server.js';

const SIM_TARGET = 0.95;
const PEER_TARGET = 0.6;
const CATALOGUE_PAGE = '/v2.1/catalogue?countries=FR&perPage=50';
const HERE = fileURLToPath(new URL('.', import.meta.url));

interface Target {
  readonly name: string;
  readonly pid: number;
  readonly url: string;
  readonly apiKey: string;
  readonly iccid: string;
  readonly bundle: string;
  close(): Promise<void>;
}

interface Operation {
  readonly key: 'esim' | 'orders' | 'catalogue';
  readonly name: string;
  readonly method: 'GET' | 'POST';
  readonly path: (t: Target) => string;
  readonly body?: (t: Target) => string;
}

const orderBody = (t: Target): string =>
  JSON.stringify({
    type: 'transaction',
    assign: false,
    order: [{ type: 'bundle', item: t.bundle, quantity: 1 }],
  });

const OPERATIONS: readonly Operation[] = [
  {
    key: 'esim',
    name: 'GET /v2.1/esims/{iccid}',
    method: 'GET',
    path: (t) => `/v2.1/esims/${t.iccid}`,
  },
  {
    key: 'orders',
    name: 'POST /v2.1/orders (1 bundle)',
    method: 'POST',
    path: () => '/v2.1/orders',
    body: orderBody,
  },
  {
    key: 'catalogue',
    name: 'GET /v2.1/catalogue (50 bundles, cache on)',
    method: 'GET',
    path: () => CATALOGUE_PAGE,
  },
];

/** A peer process (bench/*.ts through tsx) that prints its address. */
async function startPeer(
  name: string,
  script: string,
  env: Record<string, string>,
  like: Target,
): Promise<Target> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(HERE, script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolveUrl, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1] !== undefined) resolveUrl(match[1]);
    });
    child.once('exit', () => reject(new Error(`${name} exited: ${output}`)));
  });
  return {
    ...like,
    name,
    pid: child.pid ?? 0,
    url,
    async close() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

async function answerOf(t: Target, op: Operation): Promise<Replayed & { text: string }> {
  const body = op.body?.(t);
  const res = await fetch(`${t.url}${op.path(t)}`, {
    method: op.method,
    headers: { 'x-api-key': t.apiKey, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${t.name}: ${op.name} answered ${res.status} ${text}`);
  return {
    method: op.method,
    url: op.path(t),
    status: res.status,
    contentType: res.headers.get('content-type') ?? 'application/json',
    body: text,
    text,
  };
}

interface Figures {
  readonly rate: number[];
  readonly cpu: number[];
}

/** One block: requests per second and server CPU per request (µs). */
async function block(
  op: Operation,
  t: Target,
  seconds: number,
  connections: number,
): Promise<{ rate: number; cpu: number }> {
  const body = op.body?.(t);
  const from = cpuNanos(t.pid);
  const began = performance.now();
  const result = await autocannon({
    url: `${t.url}${op.path(t)}`,
    method: op.method,
    headers: { 'x-api-key': t.apiKey, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body }),
    connections,
    duration: seconds,
  });
  const elapsed = (performance.now() - began) / 1000;
  const used = cpuNanos(t.pid) - from;
  const failed = result.non2xx + result.errors;
  if (failed > 0) throw new Error(`${op.name} on ${t.name}: ${failed} failed`);
  const count = result.requests.total;
  return { rate: count / elapsed, cpu: used / 1000 / Math.max(1, count) };
}

/** The median of per-round ratios a / b. */
function ratio(a: readonly number[], b: readonly number[]): number {
  return median(a.map((x, i) => x / (b[i] ?? NaN)));
}

export interface ModesOptions {
  readonly older: string | undefined;
  readonly rounds: number;
  readonly seconds: number;
  readonly connections: number;
  readonly operations: readonly string[];
  /** Sets of server processes, one after the other; the verdict is the median over them. */
  readonly sets: number;
  readonly print: (line: string) => void;
}

/** What one set of servers gave: the new build's ratios, judged on CPU per request. */
interface SetResult {
  /** Production / simulator, by operation name. */
  readonly simulator: Map<string, number>;
  /** In-memory peer / simulator, for orders. */
  readonly peer: number | undefined;
}

export async function runModesBenchmark(options: ModesOptions): Promise<boolean> {
  const results: SetResult[] = [];
  for (let set = 1; set <= options.sets; set += 1) {
    if (options.sets > 1) options.print(`\n## Set ${set} of ${options.sets}: servers of its own`);
    results.push(await runModesSet(options));
  }
  if (options.sets === 1) {
    const only = results[0] as SetResult;
    return (
      [...only.simulator.values()].every((r) => r >= SIM_TARGET) && (only.peer ?? 1) >= PEER_TARGET
    );
  }
  // One set's ratio moves with its processes (code layout, timing) more than between its rounds:
  // the verdict is the median over the sets.
  const { print } = options;
  print('');
  print(`Across ${options.sets} sets (CPU per request, the median of each set's rounds):`);
  print('| Ratio | per set | median | target |');
  print('| --- | --- | --- | --- |');
  let met = true;
  for (const name of results[0]?.simulator.keys() ?? []) {
    const each = results.map((r) => r.simulator.get(name) ?? NaN);
    const m = median(each);
    met &&= m >= SIM_TARGET;
    print(
      `| ${name}: production / simulator | ${each.map((x) => x.toFixed(2)).join(', ')} | ` +
        `${m.toFixed(2)} | >= ${SIM_TARGET} ${m >= SIM_TARGET ? 'PASS' : 'MISS'} |`,
    );
  }
  const peers = results.flatMap((r) => (r.peer === undefined ? [] : [r.peer]));
  if (peers.length > 0) {
    const m = median(peers);
    met &&= m >= PEER_TARGET;
    print(
      `| orders: in-memory peer / simulator | ${peers.map((x) => x.toFixed(2)).join(', ')} | ` +
        `${m.toFixed(2)} | >= ${PEER_TARGET} ${m >= PEER_TARGET ? 'PASS' : 'MISS'} |`,
    );
  }
  return met;
}

async function runModesSet(options: ModesOptions): Promise<SetResult> {
  const { rounds, seconds, connections, print } = options;
  const root = resolve(HERE, '..');
  const trees: [string, string][] =
    options.older === undefined
      ? [['new', root]]
      : [
          ['old', resolve(options.older)],
          ['new', root],
        ];
  const targets: Target[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'esim-bench-modes-'));
  const loads: number[] = [loadavg()[0] ?? NaN];
  const began = performance.now();
  const simulator = new Map<string, number>();
  let peerRatio: number | undefined;
  try {
    for (const [label, tree] of trees) {
      for (const mode of ['simulator', 'production'] as const) {
        const server: Server = await startServer(tree, `${label}-${mode}`, 'sqlite', {
          mode,
          catalogueCache: true,
        });
        targets.push({ ...server, name: `${label} ${mode}` });
      }
    }
    const reference = targets.find((t) => t.name === 'new simulator');
    if (reference === undefined) throw new Error('no new simulator');
    const operations = OPERATIONS.filter(
      (op) => options.operations.length === 0 || options.operations.includes(op.key),
    );
    const answers = await Promise.all(operations.map((op) => answerOf(reference, op)));
    const file = join(dir, 'answers.json');
    writeFileSync(file, JSON.stringify(answers));
    targets.push(
      await startPeer('bare node:http', 'replay-server.ts', { REPLAY_FILE: file }, reference),
    );
    const order = await answerOf(reference, OPERATIONS[1] as Operation);
    const price = (JSON.parse(order.text) as { total: number }).total;
    targets.push(
      await startPeer(
        'in-memory peer',
        'orders-memory-peer.ts',
        {
          PEER_SETUP: JSON.stringify({
            apiKey: reference.apiKey,
            balance: 1e15,
            bundles: [{ name: reference.bundle, price }],
          }),
        },
        reference,
      ),
    );
    for (const op of operations) {
      const measured = targets.filter((t) => t.name !== 'in-memory peer' || op.key === 'orders');
      const figures = new Map<string, Figures>(
        measured.map((t) => [t.name, { rate: [], cpu: [] }]),
      );
      for (const t of measured) await block(op, t, 1, connections);
      for (let round = 0; round < rounds; round += 1) {
        const shifted = measured.map((_, i) => measured[(i + round) % measured.length] as Target);
        if (round % 2 === 1) shifted.reverse();
        for (const t of shifted) {
          const { rate, cpu } = await block(op, t, seconds, connections);
          figures.get(t.name)?.rate.push(rate);
          figures.get(t.name)?.cpu.push(cpu);
          loads.push(loadavg()[0] ?? NaN);
        }
      }
      const bare = figures.get('bare node:http');
      const peer = figures.get('in-memory peer');
      print('');
      print(`${op.name}: ${rounds} rounds of ${seconds} s blocks, ${connections} connections`);
      print(
        '| Server | req/s (median) | CPU µs/req | req/s sim / prod | CPU prod / sim | req/s / bare | req/s / in-memory peer | CPU peer / this | CPU old / new |',
      );
      print('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
      for (const t of measured) {
        const f = figures.get(t.name) as Figures;
        const [label, mode] = t.name.split(' ');
        const prod = mode === 'simulator' ? figures.get(`${label} production`) : undefined;
        let simCell = ' | ';
        if (prod !== undefined) {
          const r = ratio(f.rate, prod.rate);
          const c = ratio(prod.cpu, f.cpu);
          const judged = (x: number) =>
            `${x.toFixed(2)}${label === 'new' ? (x >= SIM_TARGET ? ' PASS' : ' MISS') : ''}`;
          simCell = `${judged(r)} | ${judged(c)}`;
          if (label === 'new') simulator.set(op.name, c);
        }
        let peerCell = ' | ';
        if (peer !== undefined && t.name !== 'in-memory peer' && t.name !== 'bare node:http') {
          const judged = (x: number) =>
            `${x.toFixed(2)}${t.name === 'new simulator' ? (x >= PEER_TARGET ? ' PASS' : ' MISS') : ''}`;
          peerCell = `${judged(ratio(f.rate, peer.rate))} | ${judged(ratio(peer.cpu, f.cpu))}`;
          if (t.name === 'new simulator') peerRatio = ratio(peer.cpu, f.cpu);
        }
        // The new build against the old in the same mode: the median of the per-round ratios.
        const old = label === 'new' ? figures.get(`old ${mode}`) : undefined;
        const oldCell = old === undefined ? '' : ratio(old.cpu, f.cpu).toFixed(2);
        print(
          `| ${t.name} | ${num(median(f.rate))} | ${num(median(f.cpu))} | ${simCell} | ` +
            `${bare === undefined || t.name === 'bare node:http' ? '' : ratio(f.rate, bare.rate).toFixed(2)} | ${peerCell} | ${oldCell} |`,
        );
      }
    }
    print('');
    print(
      `modes: ${((performance.now() - began) / 1000).toFixed(0)} s; trees ${trees
        .map(([label, tree]) => `${label} = ${tree}`)
        .join(', ')}; SQLite; load average (1 min) ${Math.min(...loads).toFixed(1)} to ${Math.max(
        ...loads,
      ).toFixed(1)}; targets judged on CPU per request`,
    );
    return { simulator, peer: peerRatio };
  } finally {
    for (const t of targets) await t.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The settings from the environment; BENCH_OLDER_TREE (or the first argument) names the older build. */
export function modesOptionsFromEnv(print: (line: string) => void): ModesOptions {
  const older = process.argv[1] === fileURLToPath(import.meta.url) ? process.argv[2] : undefined;
  const olderTree = older ?? process.env['BENCH_OLDER_TREE'];
  return {
    older: olderTree === '' ? undefined : olderTree,
    rounds: envInteger('BENCH_ROUNDS', 6),
    seconds: envInteger('BENCH_BLOCK_SECONDS', 2),
    connections: envInteger('BENCH_CONNECTIONS', 32),
    operations: (process.env['BENCH_OPERATIONS'] ?? '').split(',').filter((s) => s !== ''),
    sets: envInteger('BENCH_SETS', 1),
    print,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // A measurement, not a test: the exit code is 0 whether the targets are met or missed.
  await runModesBenchmark(modesOptionsFromEnv((line) => console.log(line)));
}
