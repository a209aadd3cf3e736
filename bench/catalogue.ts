// Benchmark: GET /v2.1/catalogue?countries=FR&perPage=50 with a valid key on the embedded
// database, against a bare Fastify route returning the same bytes from memory, in the same run
// with the same connection count. Targets: ratio >= 0.6 and p99 < 20 ms. See bench/README.md.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';

const PATH = '/v2.1/catalogue?countries=FR&perPage=50';
const TARGET_RATIO = 0.6;
const TARGET_P99_MS = 20;

export interface Measurement {
  readonly requestsPerSecond: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
}

export interface CatalogueBenchOptions {
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  readonly print: (line: string) => void;
}

async function measure(
  url: string,
  headers: Record<string, string>,
  connections: number,
  duration: number,
): Promise<Measurement> {
  const result = await autocannon({ url, headers, connections, duration });
  return {
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

function row(label: string, m: Measurement): string {
  const rps = m.requestsPerSecond.toFixed(0).padStart(8);
  const p99 = `${m.p99Ms.toFixed(1)} ms`.padStart(9);
  const failed = m.non2xx + m.errors > 0 ? `  (${m.non2xx} non-2xx, ${m.errors} errors)` : '';
  return `  ${label.padEnd(34)} ${rps} req/s   p99 ${p99}${failed}`;
}

export async function runCatalogueBenchmark(options: CatalogueBenchOptions): Promise<boolean> {
  const { print, connections, durationSeconds, warmupSeconds } = options;
  const serverScript = fileURLToPath(new URL('./catalogue-server.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', serverScript], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: process.env,
  });
  try {
    const lines = createInterface({ input: child.stdout });
    const [first] = (await Promise.race([
      once(lines, 'line'),
      once(child, 'exit').then(() => {
        throw new Error('benchmark server exited before it was ready');
      }),
    ])) as [string];
    const ready = JSON.parse(first) as {
      appUrl: string;
      bareUrl: string;
      apiKey: string;
      bytes: number;
    };
    const headers = { 'x-api-key': ready.apiKey };
    print(
      `catalogue: GET ${PATH} (${ready.bytes} bytes), ${connections} connections, ${durationSeconds} s each`,
    );
    // Warm both targets (JIT, statement caches, connection setup) before measuring.
    await measure(`${ready.appUrl}${PATH}`, headers, connections, warmupSeconds);
    await measure(`${ready.bareUrl}${PATH}`, {}, connections, warmupSeconds);
    const app = await measure(`${ready.appUrl}${PATH}`, headers, connections, durationSeconds);
    const bare = await measure(`${ready.bareUrl}${PATH}`, {}, connections, durationSeconds);
    const ratio = bare.requestsPerSecond === 0 ? 0 : app.requestsPerSecond / bare.requestsPerSecond;
    const ratioOk = ratio >= TARGET_RATIO;
    const p99Ok = app.p99Ms < TARGET_P99_MS && app.non2xx === 0 && app.errors === 0;
    print(row('service (auth + SQLite + serialise)', app));
    print(row('bare route, same bytes', bare));
    print(
      `  ratio ${ratio.toFixed(2)} (target >= ${TARGET_RATIO}) ${ratioOk ? 'PASS' : 'MISS'};` +
        ` p99 ${app.p99Ms.toFixed(1)} ms (target < ${TARGET_P99_MS} ms) ${p99Ok ? 'PASS' : 'MISS'}`,
    );
    return ratioOk && p99Ok;
  } finally {
    child.stdin.end();
    if (child.exitCode === null) await once(child, 'exit');
  }
}

function envSeconds(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}

export function benchOptionsFromEnv(print: (line: string) => void): CatalogueBenchOptions {
  return {
    durationSeconds: envSeconds('BENCH_DURATION', 10),
    warmupSeconds: envSeconds('BENCH_WARMUP', 2),
    connections: 50,
    print,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runCatalogueBenchmark(benchOptionsFromEnv((line) => console.log(line)));
}
