#!/usr/bin/env node
// The `esim` command. It runs the compiled CLI, dist/esim.js (built by `npm ci` through `prepare`,
// or `npm run build`), with plain node. A checkout without dist/ falls back to the TypeScript sources
// through tsx, a development dependency.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = fileURLToPath(new URL('../dist/esim.js', import.meta.url));
let entry = compiled;
if (!existsSync(compiled)) {
  try {
    const { register } = await import('tsx/esm/api');
    register();
  } catch {
    process.stderr.write('esim: dist/ is missing and tsx is not installed: run `npm run build`\n');
    process.exit(1);
  }
  entry = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
}
const { main } = await import(entry);
process.exitCode = await main(process.argv.slice(2));
// Once the command is done, a leftover handle (a socket, a timer) must not keep the process alive.
setTimeout(() => process.exit(), 2000).unref();
