// Runs every *.test.ts under src/ and test/ with node's test runner (through tsx).
// Node 20's runner does not expand globs itself. Arguments narrow the run to files whose path
// contains one of them, e.g. `npm test -- catalogue orders`.
// Process tests start bin/esim.js, which runs the compiled dist/: it is rebuilt first whenever a
// source file (src/, packages/client/src/) is newer than the last build, so no test ever runs stale JavaScript.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

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

ensureBuilt();
const filters = process.argv.slice(2);
const files = ['src', 'test']
  .flatMap(collect)
  .filter((f) => filters.length === 0 || filters.some((w) => f.includes(w)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
// TEST_STRESS=1 (or a number of cores) runs the tests while another process keeps that many
// cores (2 by default) busy for the whole run: the suite must hold on a loaded machine.
const stress = process.env.TEST_STRESS;
let load;
if (stress !== undefined && stress !== '' && stress !== '0') {
  const cores = stress === '1' || stress === 'true' ? 2 : Number(stress);
  load = spawn(process.execPath, ['scripts/stress-load.mjs', String(cores)], { stdio: 'ignore' });
  console.error(`TEST_STRESS: ${cores} cores kept busy by process ${load.pid} during the run`);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      load?.kill('SIGKILL');
      process.exit(1);
    });
  }
}
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-reporter=spec',
    ...files,
  ],
  { stdio: 'inherit' },
);
child.on('exit', (code, signal) => {
  load?.kill('SIGKILL');
  process.exit(code ?? (signal ? 1 : 0));
});
