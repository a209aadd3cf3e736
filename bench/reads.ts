// Benchmark: the reads integrations make most, each against a bare Fastify route answering the
// same bytes from memory, in the same run with the same connection count:
// - GET /v2.1/esims/{iccid} (one eSIM with a bundle, installed): target ratio >= 0.6;
// - GET /v2.1/catalogue?countries=FR&perPage=50 with the catalogue's answer cache off, so every
//   request queries and serialises the page: target ratio >= 0.3.
// Authentication and the eSIM read run as configured (API_KEY_CACHE_MS, ESIM_CACHE_MS: default on).
// See bench/README.md.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';

export interface ReadsBenchOptions {
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  /** Measure only the paths containing one of these (BENCH_READS=esims,catalogue). */
  readonly only?: readonly string[];
  readonly print: (line: string) => void;
}

interface Measurement {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly failed: number;
  /** Server CPU (user + system) per answered request, microseconds; NaN without /proc. */
  readonly cpuUs: number;
}

interface Ready {
  readonly appUrl: string;
  readonly bareUrl: string;
  readonly apiKey: string;
  readonly paths: readonly { path: string; bytes: number }[];
}

/** Target ratio (service / bare) by the start of the path. */
const TARGETS: readonly { prefix: string; name: string; ratio: number }[] = [
  { prefix: '/v2.1/esims/', name: 'GET /esims/{iccid}', ratio: 0.6 },
  { prefix: '/v2.1/catalogue', name: 'GET /catalogue, cache off', ratio: 0.3 },
];

/** CPU seconds (user + system) the process has used so far, from /proc; NaN elsewhere. */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces): utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

async function measure(
  url: string,
  headers: Record<string, string>,
  connections: number,
  duration: number,
  pid?: number,
): Promise<Measurement> {
  const cpuBefore = cpuSeconds(pid);
  const result = await autocannon({ url, headers, connections, duration });
  const cpu = cpuSeconds(pid) - cpuBefore;
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failed: result.non2xx + result.errors,
    cpuUs: (cpu * 1e6) / Math.max(1, result.requests.total),
  };
}

const num = (n: number): string => Math.round(n).toLocaleString('en-US');

function tableRow(cells: readonly string[]): string {
  const widths = [26, 7, 13, 13, 16, 17, 5, 7, 4];
  return `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
}

async function startServer(): Promise<{ ready: Ready; pid?: number; stop(): Promise<void> }> {
  const serverScript = fileURLToPath(new URL('./reads-server.ts', import.meta.url));
  // BENCH_NODE_ARGS: extra Node.js options for the server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/p".
  const nodeArgs = (process.env['BENCH_NODE_ARGS'] ?? '').split(' ').filter((a) => a !== '');
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', serverScript], {
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

export async function runReadsBenchmark(options: ReadsBenchOptions): Promise<boolean> {
  const { print, connections, durationSeconds, warmupSeconds } = options;
  const { ready, pid, stop } = await startServer();
  try {
    const auth = { 'x-api-key': ready.apiKey };
    print(`reads: ${connections} connections, ${durationSeconds} s per measurement, SQLite`);
    print(
      tableRow([
        'Read',
        'Bytes',
        'Service req/s',
        'Bare req/s',
        'Service p50 / p99',
        'CPU/req svc / bare',
        'Ratio',
        'Target',
        '',
      ]),
    );
    print(tableRow(Array.from({ length: 9 }, () => '---')));
    let met = true;
    for (const { path, bytes } of ready.paths) {
      const target = TARGETS.find((t) => path.startsWith(t.prefix));
      if (options.only !== undefined && !options.only.some((name) => path.includes(name))) continue;
      // Warm both (JIT, statement caches, connections), then measure them one after the other.
      await measure(`${ready.appUrl}${path}`, auth, connections, warmupSeconds);
      await measure(`${ready.bareUrl}${path}`, {}, connections, warmupSeconds);
      const app = await measure(`${ready.appUrl}${path}`, auth, connections, durationSeconds, pid);
      const bare = await measure(`${ready.bareUrl}${path}`, {}, connections, durationSeconds, pid);
      const ratio =
        bare.requestsPerSecond === 0 ? 0 : app.requestsPerSecond / bare.requestsPerSecond;
      const ok = target !== undefined && ratio >= target.ratio && app.failed === 0;
      met &&= ok;
      print(
        tableRow([
          target?.name ?? path,
          num(bytes),
          num(app.requestsPerSecond) + (app.failed > 0 ? ` (${app.failed} failed)` : ''),
          num(bare.requestsPerSecond),
          `${app.p50Ms} / ${app.p99Ms} ms`,
          `${num(app.cpuUs)} / ${num(bare.cpuUs)} µs`,
          ratio.toFixed(2),
          `>= ${target?.ratio ?? '?'}`,
          ok ? 'PASS' : 'MISS',
        ]),
      );
    }
    print(
      '  Ratio: service req/s / bare req/s in this run. CPU/req: the server process, from /proc;' +
        ' on a loaded machine bare CPU/req / service CPU/req is the steadier comparison.',
    );
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

export function readsOptionsFromEnv(print: (line: string) => void): ReadsBenchOptions {
  return {
    durationSeconds: envSeconds('BENCH_DURATION', 10),
    warmupSeconds: envSeconds('BENCH_WARMUP', 2),
    connections: 50,
    ...(process.env['BENCH_READS'] === undefined
      ? {}
      : { only: process.env['BENCH_READS'].split(',').filter((name) => name !== '') }),
    print,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runReadsBenchmark(readsOptionsFromEnv((line) => console.log(line)));
}
