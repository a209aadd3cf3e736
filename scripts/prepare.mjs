// `prepare` (run by `npm ci` and `npm install`): builds dist/ (scripts/build.mjs), which
// `npm start` and bin/esim.js run with plain node. An install without development dependencies
// (no TypeScript, no esbuild) keeps a dist/ built earlier, e.g. by a container's build stage.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
try {
  const require = createRequire(import.meta.url);
  require.resolve('typescript/bin/tsc');
  require.resolve('esbuild');
} catch {
  if (existsSync(new URL('../dist/esim.js', import.meta.url))) process.exit(0);
  console.error(
    'prepare: TypeScript is not installed and dist/ is missing: install with development ' +
      'dependencies (npm ci), which builds dist/, then remove them (npm prune --omit=dev)',
  );
  process.exit(1);
}
const run = spawnSync(process.execPath, ['scripts/build.mjs'], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
