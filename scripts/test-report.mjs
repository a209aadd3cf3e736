// The reporter of a test worker (scripts/test-worker.mjs): it gathers the events of one test file
// until the worker's closing test for that file, then sends the file's counts and failures to the
// runner (scripts/test.mjs) over the worker's IPC channel.
import { readFileSync } from 'node:fs';
import { Transform } from 'node:stream';
import { inspect } from 'node:util';

/** The name of the closing test the worker runs after each file, followed by the file. */
export const END_OF_FILE = '\u0000end of file ';

/**
 * Processor time of the processes this worker started and has seen end (the command-line tool,
 * servers, npm), in milliseconds: Linux's cutime and cstime; undefined elsewhere.
 */
export function childrenMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    // After the command's name: state is field 3, cutime and cstime are fields 16 and 17.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return undefined;
  }
}

function emptyResult() {
  return {
    tests: 0,
    suites: 0,
    pass: 0,
    fail: 0,
    cancelled: 0,
    skipped: 0,
    todo: 0,
    failures: [],
    slowest: [],
  };
}

/** Keeps the file's three longest tests (TEST_TIMES_OUT writes them: where a file's time went). */
function noteDuration(result, name, ms) {
  if (typeof ms !== 'number') return;
  result.slowest.push({ name, ms: Math.round(ms) });
  result.slowest.sort((a, b) => b.ms - a.ms);
  result.slowest.length = Math.min(result.slowest.length, 3);
}

function describeError(error) {
  // A failed test's error is ERR_TEST_FAILURE; what the test threw is its cause.
  const thrown =
    error?.code === 'ERR_TEST_FAILURE' && error.cause !== undefined ? error.cause : error;
  return inspect(thrown, { depth: 6, colors: false });
}

function reporter() {
  let result = emptyResult();
  // Failures whose enclosing suites have not yet ended: each gets their names as they end.
  let open = [];
  return (event) => {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') return;
    const data = event.data;
    if (data.nesting === 0 && data.name.startsWith(END_OF_FILE)) {
      const file = data.name.slice(END_OF_FILE.length);
      // The closing test fails on errors of what the file's tests left running (test-worker.mjs):
      // a failure of the file, unless one of its tests already failed (they set the same mark).
      const failed = result.fail > 0 || result.cancelled > 0 || result.failures.length > 0;
      if (event.type === 'test:fail' && !failed) {
        result.fail += 1;
        result.failures.push({ path: [file], level: 0, error: describeError(data.details?.error) });
      }
      const started = globalThis[Symbol.for('esim.test.started')]?.get(file);
      result.ms = started === undefined ? 0 : Math.round(performance.now() - started.at);
      // The worker's own processor time for the file (not the processes it started).
      const cpu = process.cpuUsage(started?.cpu);
      result.cpuMs = started === undefined ? 0 : Math.round((cpu.user + cpu.system) / 1000);
      // The processes it started and saw end (Chromium, kept for the next files, is not counted).
      const children = childrenMs();
      if (children !== undefined && started?.children !== undefined) {
        result.childCpuMs = children - started.children;
      }
      process.send?.({ result: { file, ...result } });
      result = emptyResult();
      open = [];
      return;
    }
    for (const failure of open) {
      if (failure.level === data.nesting + 1) {
        failure.path.unshift(data.name);
        failure.level = data.nesting;
      }
    }
    const suite = data.details?.type === 'suite';
    if (suite) result.suites += 1;
    else {
      result.tests += 1;
      noteDuration(result, data.name, data.details?.duration_ms);
    }
    if (data.skip !== undefined) result.skipped += 1;
    else if (data.todo !== undefined) result.todo += 1;
    else if (event.type === 'test:pass') {
      if (!suite) result.pass += 1;
    } else {
      const error = data.details?.error;
      const kind = error?.failureType;
      if (kind === 'cancelledByParent') result.cancelled += 1;
      else if (!suite) result.fail += 1;
      // A suite that failed only because a test in it failed adds nothing to that test's report.
      if (kind !== 'subtestsFailed') {
        const failure = { path: [data.name], level: data.nesting, error: describeError(error) };
        open.push(failure);
        result.failures.push(failure);
      }
    }
    open = open.filter((failure) => failure.level > 0);
  };
}

// Writes nothing itself: what it gathers goes to the runner.
const take = reporter();
export default new Transform({
  writableObjectMode: true,
  transform(event, _encoding, done) {
    take(event);
    done();
  },
});
