// Benchmark: a first start, `node dist/esim.js serve` on an empty data directory, from its spawn
// to the first 200 of GET /healthz (listening), of GET /readyz (ready to serve) and to the demo
// organisation's key on its output (made after readiness), with the CPU time (user + system)
// the process had used at readiness and once the key was printed. Each start gets a new data
// directory. With BENCH_BASE=<dir> (a copy of another build's dist/, e.g. `cp -a dist
// /tmp/base/dist` before a change, kept under the checkout so node_modules resolves) both builds
// start in turn, BENCH_STARTS times each (default 5), so machine noise spreads over both; prints
// the medians. Target: /readyz within 300 ms of the spawn.
//   npx tsx bench/first-start.ts            BENCH_BASE=.base/dist npx tsx bench/first-start.ts
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { envInteger, quantile } from './figures.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TARGET_MS = 300;

interface FirstStart {
  readonly healthzMs: number;
  readonly readyzMs: number;
  readonly demoMs: number;
  readonly readyCpuMs: number;
  readonly demoCpuMs: number;
}

/** CPU time (user + system) a process has used so far, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

async function status(url: string): Promise<number> {
  try {
    const res = await fetch(url);
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise((done) => server.close(done));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const tick = (): Promise<void> => new Promise((done) => setTimeout(done, 2));

async function firstStart(entry: string): Promise<FirstStart> {
  const data = mkdtempSync(join(tmpdir(), 'esim-bench-first-start-'));
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [entry, 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: data,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  try {
    let healthzMs = 0;
    let readyzMs = 0;
    while (readyzMs === 0) {
      if (child.exitCode !== null) throw new Error(`the service exited: ${output}`);
      if (performance.now() - started > 60_000) throw new Error('no answer in 60 s');
      if (healthzMs === 0 && (await status(`http://127.0.0.1:${port}/healthz`)) === 200) {
        healthzMs = performance.now() - started;
      }
      if ((await status(`http://127.0.0.1:${port}/readyz`)) === 200) {
        readyzMs = performance.now() - started;
      }
      if (readyzMs === 0) await tick();
    }
    const readyCpuMs = cpuMs(child.pid);
    while (!/^API key: /m.test(output)) {
      if (child.exitCode !== null) throw new Error(`the service exited: ${output}`);
      await tick();
    }
    const demoMs = performance.now() - started;
    return { healthzMs, readyzMs, demoMs, readyCpuMs, demoCpuMs: cpuMs(child.pid) };
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(data, { recursive: true, force: true });
  }
}

export async function runFirstStartBenchmark(
  print: (line: string) => void,
  starts = envInteger('BENCH_STARTS', 5),
  base = process.env['BENCH_BASE'],
): Promise<boolean> {
  const builds: [string, string][] = [['this build', join(ROOT, 'dist', 'esim.js')]];
  if (base !== undefined) builds.push([`base (${base})`, join(resolve(ROOT, base), 'esim.js')]);
  print(`== first start on an empty data directory, ${starts} starts per build, alternated`);
  const runs = new Map<string, FirstStart[]>(builds.map(([name]) => [name, []]));
  for (let i = 0; i < starts; i++) {
    for (const [name, entry] of builds) runs.get(name)?.push(await firstStart(entry));
  }
  let met = true;
  for (const [name, list] of runs) {
    const median = (pick: (s: FirstStart) => number): number =>
      Math.round(quantile(list.map(pick), 0.5));
    const ready = median((s) => s.readyzMs);
    if (name === 'this build' && ready >= TARGET_MS) met = false;
    print(
      `   ${name.padEnd(24)} /healthz ${median((s) => s.healthzMs)} ms, /readyz ${ready} ms ` +
        `(${list.map((s) => Math.round(s.readyzMs)).join(', ')}), demo key ${median((s) => s.demoMs)} ms; ` +
        `CPU at ready ${median((s) => s.readyCpuMs)} ms, at the key ${median((s) => s.demoCpuMs)} ms`,
    );
  }
  print(`   target: /readyz within ${TARGET_MS} ms: ${met ? 'PASS' : 'MISS'}`);
  return met;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runFirstStartBenchmark((line) => console.log(line));
}
