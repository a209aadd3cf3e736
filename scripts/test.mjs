// Runs every *.test.ts under src/ and test/ with node's test runner (through tsx).
//
// The files run in TEST_CONCURRENCY (4; 2 with --quick) long-lived worker processes (scripts/test-worker.mjs),
// each running the files it is given one after another in itself: TypeScript is compiled, the
// modules loaded and the shared set-up made (test/harness.ts) once per worker instead of once per
// file. The longest files go first (test/file-times.json), so that no long file starts last.
// A file listed in ISOLATED below runs in a worker of its own, started for it alone.
// Each file's result is printed as it ends, with the failures and the output of a failed file;
// a worker that dies fails the file it was running and a new worker takes the rest.
//
//   npm test                         everything: both databases, processes, browser, package, docs
//   npm test -- catalogue orders     only the files whose path contains one of the words
//   npm run test:quick               unit tests and in-process SQLite tests (QUICK_EXCLUDED below)
//   npm test -- --record-times       also writes each file's time to test/file-times.json
//
// TEST_STRESS=1 (or a number of cores) keeps that many cores (2 by default) busy in another
// process for the whole run: the suite must hold on a loaded machine.
//
// Process tests start bin/esim.js, which runs the compiled dist/: it is rebuilt first whenever a
// source file (src/, packages/client/src/) is newer than the last build, so no test ever runs stale JavaScript.
import { fork, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  dropAbandonedTablespaces,
  dropTablespace,
  holdRunLock,
  memoryTablespace,
  withAdmin,
} from './test-tablespace.mjs';

/** Files that run in a process of their own (they change process-wide state). */
const ISOLATED = new Set([]);

/**
 * What `--quick` leaves out: the browser, command-line, package, lint and docs suites, the check
 * that the generated API files are committed, and any other file that starts the service or a
 * browser as a process of its own (SLOW_SET_UP in its text). The rest runs on SQLite only
 * (TEST_DATABASES=sqlite).
 */
const QUICK_EXCLUDED = [
  'test/portal/',
  'test/cli/',
  'test/package/',
  'test/ci/',
  'test/docs/',
  'test/api-files.test.ts',
];
const SLOW_SET_UP =
  /\b(spawnEsim|spawnEsimIn|startServerProcess|startServerProcesses|startReceiverProcess)\(|child_process|playwright|portal-harness/;
const quickFile = (file) =>
  !QUICK_EXCLUDED.some((w) => file.includes(w)) && !SLOW_SET_UP.test(readFileSync(file, 'utf8'));

const TIMES_FILE = join('test', 'file-times.json');
const FILE_TIMEOUT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 20 * 60_000);

function collect(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : collect(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

function newestSource(dir) {
  return readdirSync(dir, { withFileTypes: true }).reduce((newest, entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return Math.max(newest, newestSource(path));
    return entry.name.endsWith('.test.ts') ? newest : Math.max(newest, statSync(path).mtimeMs);
  }, 0);
}

function builtAt() {
  try {
    return statSync(join('dist', 'esim.js')).mtimeMs;
  } catch {
    return 0; // never built
  }
}

function ensureBuilt() {
  const sources = Math.max(
    newestSource('src'),
    newestSource(join('packages', 'client', 'src')),
    statSync('tsconfig.build.json').mtimeMs,
  );
  if (builtAt() >= sources) return;
  console.error('building dist/ (sources changed since the last build)');
  const run = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  if (builtAt() < sources) {
    console.error('the build failed: dist/esim.js is older than the sources');
    process.exit(1);
  }
  // tsc emits despite type errors; `npm run typecheck` reports those.
  if (run.status !== 0) console.error('the build reported errors; dist/ is emitted anyway');
}

function readTimes() {
  try {
    return JSON.parse(readFileSync(TIMES_FILE, 'utf8'));
  } catch {
    return {};
  }
}

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const recordTimes = args.includes('--record-times');
const filters = args.filter((a) => !a.startsWith('--'));
if (!quick) ensureBuilt();
const times = readTimes();
// A file not timed yet is taken for a long one, so that it starts early.
const expected = (file) => times[file] ?? 60_000;
const files = ['src', 'test']
  .flatMap(collect)
  .filter((f) => filters.length === 0 || filters.some((w) => f.includes(w)))
  .filter((f) => !quick || quickFile(f))
  .sort((a, b) => expected(b) - expected(a) || a.localeCompare(b));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// Four workers on two cores: many files wait (on the servers and commands they start, leases,
// crashes they provoke, the browser) more than they compute; with four the two cores stay busy
// (measured against three and five: bench/test-suite.md).
// The quick tier's files compute more than they wait: two workers there (bench/test-suite.md).
const concurrency = Math.max(1, Number(process.env.TEST_CONCURRENCY ?? (quick ? '2' : '4')));
// The run's PostgreSQL databases carry its id (test/databases.ts), so its shared templates and
// what a killed process left are dropped at the end.
const runId = randomBytes(4).toString('hex');
const postgresUrl = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
// The run's lock first (a run started at the same moment then leaves its tablespace alone),
// then what killed runs left, then the run's own tablespace.
const runLock = quick ? undefined : await holdRunLock(postgresUrl, runId);
const abandoned = runLock === undefined ? [] : await dropAbandonedTablespaces(postgresUrl);
if (abandoned.length > 0)
  console.error(`dropped what killed test runs left in PostgreSQL: ${abandoned.join(', ')}`);
const tablespace = runLock === undefined ? undefined : await memoryTablespace(postgresUrl, runId);
const env = {
  ...process.env,
  TEST_RUN_ID: runId,
  ...(quick ? { TEST_DATABASES: 'sqlite' } : {}),
  ...(tablespace === undefined ? {} : { TEST_POSTGRES_TABLESPACE: tablespace.name }),
};

const stress = process.env.TEST_STRESS;
let load;
if (stress !== undefined && stress !== '' && stress !== '0') {
  const cores = stress === '1' || stress === 'true' ? 2 : Number(stress);
  load = spawn(process.execPath, ['scripts/stress-load.mjs', String(cores)], { stdio: 'ignore' });
  console.error(`TEST_STRESS: ${cores} cores kept busy by process ${load.pid} during the run`);
}
const workers = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    load?.kill('SIGKILL');
    for (const worker of workers) worker.child.kill('SIGKILL');
    // What the run made in PostgreSQL goes with it (the tablespace holds memory until dropped).
    void dropLeftDatabases()
      .then(() => dropTablespace(postgresUrl, tablespace))
      .then(() => runLock?.end())
      .finally(() => process.exit(1));
  });
}

const startedAt = performance.now();
const results = [];
const queue = [...files];
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`.padStart(8);

function printResult(result, output) {
  const failed = result.failures.length > 0 || result.fail > 0 || result.cancelled > 0;
  const counts = failed
    ? `${result.fail + result.cancelled} of ${result.tests} failed`
    : `${result.tests} tests`;
  const cpu = result.cpuMs === undefined ? '' : `, ${(result.cpuMs / 1000).toFixed(1)} s processor`;
  const lines = [`${failed ? '✖' : '✔'} ${seconds(result.ms)}  ${result.file}  (${counts}${cpu})`];
  if (failed) {
    for (const failure of result.failures) {
      lines.push(`  ✖ ${failure.path.join(' › ')}`);
      lines.push(...failure.error.split('\n').map((line) => `      ${line}`));
    }
    if (output.trim() !== '') {
      lines.push('  output of the file:');
      lines.push(
        ...output
          .trimEnd()
          .split('\n')
          .map((line) => `    | ${line}`),
      );
    }
  }
  console.log(lines.join('\n'));
}

function failedFile(file, ms, reason) {
  return {
    file,
    ms,
    tests: 0,
    suites: 0,
    pass: 0,
    fail: 1,
    cancelled: 0,
    skipped: 0,
    todo: 0,
    failures: [{ path: [file], error: reason }],
  };
}

/**
 * Starts a worker that takes files from the queue (only `only` when given) until it is empty or
 * the worker dies; resolves with the number of files it started.
 */
function startWorker(only) {
  return new Promise((resolve) => {
    const child = fork('scripts/test-worker.mjs', [], {
      execArgv: [
        '--import',
        'tsx',
        '--test-reporter=./scripts/test-report.mjs',
        '--test-reporter-destination=stdout',
      ],
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const worker = {
      child,
      file: undefined,
      last: undefined,
      output: '',
      since: 0,
      timer: undefined,
      ran: 0,
    };
    workers.add(worker);
    const capture = (chunk) => {
      const text = chunk.toString();
      worker.output += text;
      // Lines that start with "!!" are warnings for the person running the suite (databases.ts).
      for (const line of text.split('\n'))
        if (line.startsWith('!!')) process.stderr.write(line + '\n');
    };
    child.stdout.on('data', capture);
    child.stderr.on('data', capture);
    const next = () => {
      clearTimeout(worker.timer);
      const file = only ?? queue.find((f) => !ISOLATED.has(f));
      only = undefined;
      if (file === undefined || (worker.file !== undefined && ISOLATED.has(worker.file))) {
        worker.file = undefined;
        child.send({ exit: true });
        return;
      }
      queue.splice(queue.indexOf(file), 1);
      worker.file = file;
      worker.last = file;
      worker.ran += 1;
      worker.output = '';
      worker.since = performance.now();
      worker.timer = setTimeout(() => {
        child.kill('SIGKILL');
      }, FILE_TIMEOUT_MS);
      child.send({ run: file });
    };
    child.on('message', (message) => {
      if (message.ready === true) next();
      else if (message.result !== undefined) {
        results.push(message.result);
        printResult(message.result, worker.output);
        next();
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(worker.timer);
      workers.delete(worker);
      if (worker.file !== undefined) {
        const ms = performance.now() - worker.since;
        const why =
          ms >= FILE_TIMEOUT_MS
            ? `still running after ${FILE_TIMEOUT_MS / 1000} s (TEST_FILE_TIMEOUT_MS): stopped`
            : `the test process ended (${signal ?? `exit code ${code}`}) before the file did`;
        const result = failedFile(worker.file, Math.round(ms), why);
        results.push(result);
        printResult(result, worker.output);
        worker.file = undefined;
      } else if ((code !== 0 || signal !== null) && worker.last !== undefined) {
        // Its files ended, but what they left running failed before the worker ended
        // (test-worker.mjs), or the worker could not end cleanly.
        const result = failedFile(
          worker.last,
          0,
          `the test process ended with ${signal ?? `exit code ${code}`} after its last file, ${worker.last}: an error after a test ended`,
        );
        results.push(result);
        printResult(result, worker.output);
      }
      resolve(worker.ran);
    });
  });
}

async function runAll() {
  const isolated = files.filter((f) => ISOLATED.has(f));
  const lanes = Array.from({ length: Math.min(concurrency, files.length) }, async (_, lane) => {
    // Isolated files are shared out first, each in a worker of its own; then the rest.
    for (let i = lane; i < isolated.length; i += concurrency) await startWorker(isolated[i]);
    // A worker that dies fails its file (above) and the files left go on in a new one; a worker
    // that dies before its first file would die again: the files left are reported as not run.
    while (queue.some((f) => !ISOLATED.has(f))) if ((await startWorker()) === 0) return;
  });
  await Promise.all(lanes);
}

/** Drops the run's shared templates and any database a killed test process left. */
async function dropLeftDatabases() {
  if (quick) return;
  try {
    await withAdmin(postgresUrl, async (admin) => {
      const { rows } = await admin.query(
        "select datname from pg_database where datname like 'esim\\_%\\_' || $1 || '\\_%'",
        [runId],
      );
      for (const { datname } of rows)
        await admin.query(`drop database if exists ${datname} with (force)`);
    });
  } catch {
    // No PostgreSQL: nothing was made there.
  }
}

await runAll();
load?.kill('SIGKILL');
await dropLeftDatabases();
await dropTablespace(postgresUrl, tablespace);
await runLock?.end().catch(() => undefined);

const total = (key) => results.reduce((sum, r) => sum + r[key], 0);
const failedFiles = results.filter((r) => r.failures.length > 0 || r.fail > 0 || r.cancelled > 0);
const wall = performance.now() - startedAt;
const notRun = files.filter((f) => !results.some((r) => r.file === f));
if (notRun.length > 0) {
  console.log(`\nnot run: a test process could not start (${notRun.length} files):`);
  for (const f of notRun) console.log(`  ✖ ${f}`);
}
if (failedFiles.length > 0) {
  console.log(`\nfailed files (${failedFiles.length}):`);
  for (const r of failedFiles) console.log(`  ✖ ${r.file}`);
}
console.log(
  [
    '',
    `# files ${results.length}`,
    `# tests ${total('tests')}`,
    `# suites ${total('suites')}`,
    `# pass ${total('pass')}`,
    `# fail ${total('fail')}`,
    `# cancelled ${total('cancelled')}`,
    `# skipped ${total('skipped')}`,
    `# todo ${total('todo')}`,
    `# duration_ms ${Math.round(wall)}`,
  ].join('\n'),
);
if (process.env.TEST_TIMES_OUT !== undefined) {
  writeFileSync(
    process.env.TEST_TIMES_OUT,
    results
      .map((r) =>
        JSON.stringify({
          file: r.file,
          ms: r.ms,
          cpuMs: r.cpuMs,
          childCpuMs: r.childCpuMs,
          fail: r.fail,
          slowest: r.slowest,
        }),
      )
      .join('\n') + '\n',
  );
}
if (recordTimes) {
  const recorded = { ...times };
  for (const r of results) recorded[relative('.', r.file)] = r.ms;
  const sorted = Object.fromEntries(
    Object.entries(recorded).sort(([a], [b]) => a.localeCompare(b)),
  );
  writeFileSync(TIMES_FILE, JSON.stringify(sorted, null, 2) + '\n');
}
process.exit(failedFiles.length > 0 || results.length < files.length ? 1 : 0);
