import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { eventually } from '../harness.js';
import { BIN, scratchDir } from '../cli/helpers.js';

// docs/simulator.md's walk-through runs as printed: its shell blocks, taken from the page, run
// with bash in an empty folder where `npx esim` finds the package's command in
// node_modules/.bin, as in a project that installed the package. The block that starts the
// server runs in the background; the blocks after it run as one terminal session. The only
// setting added is PORT=0, so that the server takes a free port (the walk-through reads the
// address from data/server.json).

const DOC = new URL('../../docs/simulator.md', import.meta.url);

function walkThroughBlocks(): string[] {
  const page = readFileSync(DOC, 'utf8');
  const start = page.indexOf('\n## A walk through');
  assert.ok(start >= 0, 'docs/simulator.md has a section "A walk through"');
  const end = page.indexOf('\n## ', start + 1);
  const section = page.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
}

interface Run {
  code: number | null;
  out: string;
}

function bash(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; done: Promise<Run>; out: () => string } {
  const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const done = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ code, out })));
  return { child, done, out: () => out };
}

describe('the simulator walk-through of docs/simulator.md', () => {
  const dir = scratchDir();
  const env = { PATH: process.env['PATH'], HOME: process.env['HOME'], PORT: '0' };
  let server: ReturnType<typeof bash> | undefined;

  after(async () => {
    const pid = server?.child.pid;
    if (pid !== undefined && server?.child.exitCode === null) {
      process.kill(-pid, 'SIGTERM'); // the shell and everything it started
      await server.done;
    }
    dir.remove();
  });

  it('runs as printed: fixture, server, network, snapshots, reset to the fixture', async () => {
    mkdirSync(join(dir.path, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(BIN, join(dir.path, 'node_modules', '.bin', 'esim'));
    const blocks = walkThroughBlocks();
    const serve = blocks.findIndex((b) => /\besim serve\b/.test(b));
    assert.ok(serve > 0, 'a block that starts the server, after the fixture');

    for (const block of blocks.slice(0, serve)) {
      const run = await bash(block, dir.path, env).done;
      assert.equal(run.code, 0, `${block}\n${run.out}`);
    }
    assert.ok(existsSync(join(dir.path, 'seed.yaml')));

    const started = bash(blocks[serve] ?? '', dir.path, env);
    server = started;
    await eventually(
      async () => {
        if (started.child.exitCode !== null) throw new Error(`exited: ${started.out()}`);
        return /listening on http:\/\/\S+/.test(started.out()) ? true : undefined;
      },
      120_000,
      'the server of the walk-through to listen',
    );
    assert.match(started.out(), /Fixture organisation: Acme Travel/);

    const session = blocks.slice(serve + 1).join('\n');
    const run = await bash(session, dir.path, env).done;
    assert.equal(run.code, 0, run.out);
    assert.match(run.out, /^89\d{17} fleet-1$/m, 'the fixture eSIM is listed');
    assert.match(run.out, /^Active$/m, 'the new bundle is Active after 400 MB');
    assert.match(run.out, /^the eSIMs are those saved$/m);
    assert.match(run.out, /^1$/m, 'back to the fixture: one eSIM');
    const clock = /\{[^{}]*"offsetSeconds"[^{}]*\}\s*$/.exec(run.out)?.[0] ?? '{}';
    assert.equal((JSON.parse(clock) as { offsetSeconds?: number }).offsetSeconds, 0, run.out);
    assert.ok(existsSync(join(dir.path, 'snapshot.json')));
  });
});
