import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../harness.js';
import { BIN } from '../cli/helpers.js';

// What the walk-throughs of docs/simulator.md have in common: a section's text and shell blocks
// as printed, bash to run them in a folder where `npx esim` finds the package's command (as in a
// project that installed the package), and the server of the walk-through's steps 1 and 2.

const DOC = new URL('../../docs/simulator.md', import.meta.url);

/** The text of the section `## heading` of docs/simulator.md, up to the next section. */
export function docSection(heading: string): string {
  const page = readFileSync(DOC, 'utf8');
  const start = page.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `docs/simulator.md has a section "${heading}"`);
  const end = page.indexOf('\n## ', start + 1);
  return page.slice(start, end < 0 ? undefined : end);
}

/** The ```sh blocks of a text, in order. */
export function shellBlocks(text: string): string[] {
  return [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
}

export interface Run {
  code: number | null;
  out: string;
}

export interface Shell {
  readonly child: ChildProcess;
  readonly done: Promise<Run>;
  out(): string;
}

/** Runs a script with bash -euo pipefail in its own process group (stdout and stderr merged). */
export function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Shell {
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

/** The environment of the walk-throughs: only PORT=0 is added, so any free port does. */
export function walkthroughEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env['PATH'], HOME: process.env['HOME'], PORT: '0' };
}

/** node_modules/.bin/esim in the folder, as a project that installed the package has it. */
export function installEsimCommand(dir: string): void {
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(BIN, join(dir, 'node_modules', '.bin', 'esim'));
}

/**
 * Runs the blocks of "A walk through" up to the one that starts the server, then that one in
 * the background until it listens. Answers the server's shell and the blocks after it.
 */
export async function startWalkthroughServer(
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<{ server: Shell; rest: string[] }> {
  const blocks = shellBlocks(docSection('A walk through'));
  const serve = blocks.findIndex((b) => /\besim serve\b/.test(b));
  assert.ok(serve > 0, 'a block that starts the server, after the fixture');
  for (const block of blocks.slice(0, serve)) {
    const run = await bash(block, dir, env).done;
    assert.equal(run.code, 0, `${block}\n${run.out}`);
  }
  const server = bash(blocks[serve] ?? '', dir, env);
  await eventually(
    async () => {
      if (server.child.exitCode !== null) throw new Error(`exited: ${server.out()}`);
      return /listening on http:\/\/\S+/.test(server.out()) ? true : undefined;
    },
    120_000,
    'the server of the walk-through to listen',
  );
  return { server, rest: blocks.slice(serve + 1) };
}

/** Stops a shell and everything it started (its process group). */
export async function stopShell(shell: Shell | undefined): Promise<void> {
  const pid = shell?.child.pid;
  if (shell === undefined || pid === undefined || shell.child.exitCode !== null) return;
  process.kill(-pid, 'SIGTERM');
  await shell.done;
}
