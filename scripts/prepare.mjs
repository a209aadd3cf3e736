// `prepare` (run by `npm ci` and `npm install`): compiles src/ into dist/, which `npm start` and
// bin/esim.js run with plain node. An install without development dependencies (no TypeScript)
// keeps a dist/ built earlier, e.g. by the build stage of a container image.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  if (existsSync(new URL('../dist/cli/main.js', import.meta.url))) process.exit(0);
  console.error(
    'prepare: TypeScript is not installed and dist/ is missing: install with development ' +
      'dependencies (npm ci), which builds dist/, then remove them (npm prune --omit=dev)',
  );
  process.exit(1);
}
const run = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
