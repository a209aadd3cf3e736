// One worker of scripts/test.mjs: a long-lived process (started with `--import tsx` and the
// reporter scripts/test-report.mjs) that runs the test files it is sent, one after another, in
// itself: each file's tests are imported and run by node's test runner, then a closing test marks
// the end of the file in the report stream, where test-report.mjs sends the file's results to the
// runner, which answers with the next file or with the end.
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { inspect } from 'node:util';
import { END_OF_FILE } from './test-report.mjs';

const started = new Map();
globalThis[Symbol.for('esim.test.started')] = started;

// An error thrown outside any running test (by a timer or a promise a test left behind): node's
// runner notes it for the end of the process and sets its exit code, which this process never
// reaches. It is kept here instead, for the report of the file being run (test-report.mjs).
const outside = [];
globalThis[Symbol.for('esim.test.outside')] = outside;
for (const event of ['uncaughtException', 'unhandledRejection']) {
  process.on(event, (error) => {
    // Node's runner handles it first: a test's own error fails that test.
    setImmediate(() => {
      if (process.exitCode !== 1) return;
      process.exitCode = undefined;
      outside.push(inspect(error));
    });
  });
}

async function runFile(file) {
  started.set(file, { at: performance.now(), cpu: process.cpuUsage() });
  try {
    await import(pathToFileURL(file).href);
  } catch (error) {
    // A file that cannot even load fails as a test of its own, in its own report.
    await test(`loading ${file}`, () => {
      throw error;
    });
  }
  // Top-level tests run one after another: this one starts when every test of the file has ended.
  await test(`${END_OF_FILE}${file}`, () => undefined);
}

// What the shared set-up asks to be done before the process ends (test/databases.ts drops its
// PostgreSQL databases), bounded: the runner drops what is left by the run's name.
async function exit() {
  const cleanups = globalThis[Symbol.for('esim.test.cleanups')] ?? [];
  const bound = new Promise((resolve) => setTimeout(resolve, 60_000).unref());
  await Promise.race([Promise.all(cleanups.map((clean) => clean().catch(() => undefined))), bound]);
  process.exit(0);
}

process.on('message', (message) => {
  if (message.run !== undefined) void runFile(message.run);
  else if (message.exit === true) void exit();
});
process.on('disconnect', () => process.exit(1));
process.send({ ready: true });
