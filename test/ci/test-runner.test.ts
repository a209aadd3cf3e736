import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

// `npm test` (scripts/test.mjs) runs test files one after another in long-lived workers. These
// tests run it on small trees of test files: a file is reported as failed, and the run exits 1,
// whenever a test of it failed, including by an error thrown after the test had ended by what it
// left running (which node's own runner reports only when the process ends).

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const made: string[] = [];
after(async () => {
  for (const dir of made) await rm(dir, { recursive: true, force: true });
});

interface Run {
  exitCode: number;
  output: string;
}

// As from a shell: not as a child of this test process's runner (NODE_TEST_CONTEXT).
const runnerEnv: NodeJS.ProcessEnv = { ...process.env, TEST_CONCURRENCY: '1' };
delete runnerEnv.NODE_TEST_CONTEXT;

async function runSuite(files: Record<string, string>): Promise<Run> {
  const dir = await mkdtemp(join(tmpdir(), 'esim-runner-'));
  made.push(dir);
  await symlink(join(root, 'scripts'), join(dir, 'scripts'));
  await symlink(join(root, 'node_modules'), join(dir, 'node_modules'));
  await mkdir(join(dir, 'src'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['scripts/test.mjs', '--quick'],
      { cwd: dir, env: runnerEnv },
      (error, stdout, stderr) => {
        const exitCode = typeof error?.code === 'number' ? error.code : error ? -1 : 0;
        done({ exitCode, output: `${stdout}${stderr}` });
      },
    );
  });
}

const PASSING = `import { test } from 'node:test';
test('passes', () => undefined);
`;

describe('test runner', () => {
  it('passes a run whose tests pass', async () => {
    const run = await runSuite({ 'test/a.test.ts': PASSING, 'test/b.test.ts': PASSING });
    assert.equal(run.exitCode, 0, run.output);
    assert.match(run.output, /# pass 2/);
  });

  it('fails a run in which a test left something running that threw after it ended', async () => {
    const run = await runSuite({
      // The test ends at once; what it started throws later, while the next file runs.
      'test/a-stray.test.ts': `import { test } from 'node:test';
test('ends before its timer', () => {
  setImmediate(() => {
    (globalThis as { strayThrown?: boolean }).strayThrown = true;
    throw new Error('stray error of a-stray');
  });
});
`,
      'test/b-next.test.ts': `import { test } from 'node:test';
test('runs once the stray error was thrown', async () => {
  while ((globalThis as { strayThrown?: boolean }).strayThrown !== true) {
    await new Promise((next) => setImmediate(next));
  }
});
`,
    });
    assert.equal(run.exitCode, 1, run.output);
    assert.match(run.output, /stray error of a-stray/);
    assert.match(run.output, /failed files \(1\)/);
  });

  it('fails a run whose unhandled rejection comes after its last file', async () => {
    const run = await runSuite({
      'test/a-last.test.ts': `import { test } from 'node:test';
const cleanups = ((globalThis as Record<symbol, unknown>)[Symbol.for('esim.test.cleanups')] ??= []) as (() => Promise<void>)[];
test('leaves a rejection for the end of the worker', () => {
  cleanups.push(async () => {
    void Promise.reject(new Error('rejected after the last file'));
    await new Promise((next) => setImmediate(next));
  });
});
`,
    });
    assert.equal(run.exitCode, 1, run.output);
    assert.match(run.output, /after its last file, test\/a-last\.test\.ts/);
  });
});
