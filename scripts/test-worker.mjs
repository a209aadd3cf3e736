// One worker of scripts/test.mjs: a long-lived process (started with `--import tsx` and the
// reporter scripts/test-report.mjs) that runs the test files it is sent, one after another, in
// itself: each file's tests are imported and run by node's test runner, then a closing test marks
// the end of the file in the report stream, where test-report.mjs sends the file's results to the
// runner, which answers with the next file or with the end.
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { END_OF_FILE, childrenMs } from './test-report.mjs';

const started = new Map();
globalThis[Symbol.for('esim.test.started')] = started;

// An error thrown or a promise rejected by what a test left running after it ended is not a
// failure of any test: node's test runner sets process.exitCode and keeps the message for the end
// of the process, which in a long-lived worker is after every file. The closing test of a file
// fails when that happened meanwhile, with the errors seen, and the worker's exit code says it
// for errors after its last file.
const stray = [];
for (const event of ['uncaughtException', 'unhandledRejection']) {
  process.on(event, (error) => {
    stray.push(error);
    // Also before the test runner's own handler is installed (it is with the first test).
    process.exitCode = 1;
  });
}

function strayActivity() {
  const code = process.exitCode;
  process.exitCode = undefined;
  const errors = stray.splice(0);
  if (code === undefined || code === 0) return;
  const seen = errors.map((e) => (e instanceof Error ? (e.stack ?? e.message) : String(e)));
  const message =
    'asynchronous activity failed after a test had ended, in this file or one this worker ran ' +
    'before it (an uncaught exception or unhandled rejection)' +
    (seen.length > 0 ? `:\n${seen.join('\n')}` : '');
  const failure = new Error(message);
  failure.stack = message;
  throw failure;
}

async function runFile(file) {
  started.set(file, { at: performance.now(), cpu: process.cpuUsage(), children: childrenMs() });
  try {
    await import(pathToFileURL(file).href);
  } catch (error) {
    // A file that cannot even load fails as a test of its own, in its own report.
    await test(`loading ${file}`, () => {
      throw error;
    });
  }
  // Top-level tests run one after another: this one starts when every test of the file has ended.
  await test(`${END_OF_FILE}${file}`, strayActivity);
  // The file's failures are in its report; the mark they set is not the next file's.
  process.exitCode = undefined;
}

// What the shared set-up asks to be done before the process ends (test/databases.ts drops its
// PostgreSQL databases), bounded: the runner drops what is left by the run's name.
async function exit() {
  const cleanups = globalThis[Symbol.for('esim.test.cleanups')] ?? [];
  const bound = new Promise((resolve) => setTimeout(resolve, 60_000).unref());
  await Promise.race([Promise.all(cleanups.map((clean) => clean().catch(() => undefined))), bound]);
  process.exit(process.exitCode === undefined || process.exitCode === 0 ? 0 : 1);
}

process.on('message', (message) => {
  if (message.run !== undefined) void runFile(message.run);
  else if (message.exit === true) void exit();
});
process.on('disconnect', () => process.exit(1));
process.send({ ready: true });
