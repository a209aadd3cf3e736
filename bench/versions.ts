// Benchmark: what serving an operation through a later version costs over v2.1, in server CPU
// per answered request, for the same operation in the same run: GET /esims/{iccid}, POST /orders
// (an inventory order of one unit) and a catalogue page (countries=FR, 50 bundles, answer cache
// off). /v2.5 carries every later difference (decimals, envelope, reshaped answers, the order's
// running balance). Target: /v2.5 costs at most 10 % more CPU per request than /v2.1.
// Each pair is measured twice, alternating (2.1, 2.5, 2.1, 2.5), and the lower CPU/req of each
// version is kept, which takes out most of the noise of a shared machine. See bench/README.md.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';

interface Ready {
  readonly appUrl: string;
  readonly apiKey: string;
  readonly iccid: string;
  readonly bundle: string;
}

interface Operation {
  readonly name: string;
  readonly method: 'GET' | 'POST';
  readonly path: (ready: Ready) => string;
  readonly body?: (ready: Ready) => string;
}

const OPERATIONS: readonly Operation[] = [
  { name: 'GET /esims/{iccid}', method: 'GET', path: (r) => `/esims/${r.iccid}` },
  {
    name: 'POST /orders',
    method: 'POST',
    path: () => '/orders',
    body: (r) =>
      JSON.stringify({
        type: 'transaction',
        assign: false,
        order: [{ type: 'bundle', item: r.bundle, quantity: 1 }],
      }),
  },
  {
    name: 'GET /catalogue (page)',
    method: 'GET',
    path: () => '/catalogue?countries=FR&perPage=50',
  },
];

const TARGET = 1.1;

function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

interface Measurement {
  readonly requestsPerSecond: number;
  readonly failed: number;
  readonly cpuUs: number;
}

async function measure(
  url: string,
  op: Operation,
  ready: Ready,
  connections: number,
  duration: number,
  pid?: number,
): Promise<Measurement> {
  const before = cpuSeconds(pid);
  const result = await autocannon({
    url,
    method: op.method,
    headers: { 'x-api-key': ready.apiKey, 'content-type': 'application/json' },
    ...(op.body === undefined ? {} : { body: op.body(ready) }),
    connections,
    duration,
  });
  const cpu = cpuSeconds(pid) - before;
  return {
    requestsPerSecond: result.requests.average,
    failed: result.non2xx + result.errors,
    cpuUs: (cpu * 1e6) / Math.max(1, result.requests.total),
  };
}

async function startServer(): Promise<{ ready: Ready; pid?: number; stop(): Promise<void> }> {
  const script = fileURLToPath(new URL('./versions-server.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: process.env,
  });
  const stop = async (): Promise<void> => {
    child.stdin.end();
    if (child.exitCode === null) await once(child, 'exit');
  };
  try {
    const lines = createInterface({ input: child.stdout });
    const [first] = (await Promise.race([
      once(lines, 'line'),
      once(child, 'exit').then(() => {
        throw new Error('benchmark server exited before it was ready');
      }),
    ])) as [string];
    return { ready: JSON.parse(first) as Ready, pid: child.pid, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

const num = (n: number): string => Math.round(n).toLocaleString('en-US');

export async function runVersionsBenchmark(options: {
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  print: (line: string) => void;
}): Promise<boolean> {
  const { print, durationSeconds, warmupSeconds, connections } = options;
  const { ready, pid, stop } = await startServer();
  try {
    print(`versions: ${connections} connections, ${durationSeconds} s per measurement, SQLite`);
    print(
      '| Operation | v2.1 CPU/req | v2.5 CPU/req | v2.1 req/s | v2.5 req/s | v2.5 / v2.1 | Target |',
    );
    print('| --- | --- | --- | --- | --- | --- | --- |');
    let met = true;
    for (const op of OPERATIONS) {
      const url = (version: string): string => `${ready.appUrl}/v${version}${op.path(ready)}`;
      await measure(url('2.1'), op, ready, connections, warmupSeconds);
      await measure(url('2.5'), op, ready, connections, warmupSeconds);
      const runs: Record<string, Measurement[]> = { '2.1': [], '2.5': [] };
      for (let round = 0; round < 2; round += 1) {
        for (const version of ['2.1', '2.5']) {
          runs[version]?.push(
            await measure(url(version), op, ready, connections, durationSeconds, pid),
          );
        }
      }
      const best = (version: string): Measurement =>
        (runs[version] ?? []).reduce((a, b) => (b.cpuUs < a.cpuUs ? b : a));
      const v21 = best('2.1');
      const v25 = best('2.5');
      const failed = [...(runs['2.1'] ?? []), ...(runs['2.5'] ?? [])].some((m) => m.failed > 0);
      const ratio = v25.cpuUs / v21.cpuUs;
      const ok = ratio <= TARGET && !failed;
      met &&= ok;
      print(
        `| ${op.name} | ${num(v21.cpuUs)} µs | ${num(v25.cpuUs)} µs | ${num(v21.requestsPerSecond)} | ${num(v25.requestsPerSecond)} | ${ratio.toFixed(2)}${failed ? ' (failures)' : ''} | <= ${TARGET} ${ok ? 'PASS' : 'MISS'} |`,
      );
    }
    return met;
  } finally {
    await stop();
  }
}

function envSeconds(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const met = await runVersionsBenchmark({
    durationSeconds: envSeconds('BENCH_DURATION', 10),
    warmupSeconds: envSeconds('BENCH_WARMUP', 2),
    connections: 20,
    print: (line) => console.log(line),
  });
  process.exitCode = met ? 0 : 1;
}
