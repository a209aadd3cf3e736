#!/usr/bin/env node
// Runs the TypeScript CLI through tsx so `esim` works from a checkout without a build step.
import { register } from 'tsx/esm/api';
import { fileURLToPath } from 'node:url';

register();
const entry = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const { main } = await import(entry);
process.exitCode = await main(process.argv.slice(2));
// Once the command is done, a leftover handle (a socket, a timer) must not keep the process alive.
setTimeout(() => process.exit(), 2000).unref();
