import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { main } from '../../src/cli/main.js';
import { loadConfig } from '../../src/config.js';
import { openServices } from '../../src/main.js';
import type { DatabaseKind } from '../databases.js';
import { freshDatabase } from '../databases.js';

export const BIN = fileURLToPath(new URL('../../bin/esim.js', import.meta.url));

export type Env = Record<string, string | undefined>;

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** Runs the CLI in-process with captured output. */
export async function esim(env: Env, ...argv: string[]): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, env, {
    out: (line) => void out.push(line),
    err: (line) => void err.push(line),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** A scratch directory for a data dir or a SQLite file; remove() deletes it. */
export function scratchDir(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'esim-test-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * The environment of a CLI run against a fresh database of the given kind. SQLite is a file,
 * because every CLI call opens its own connection. Passwords are hashed at the cheapest cost.
 * The database holds what a first start leaves (every migration and the built-in catalogue),
 * copied from the process's template instead of migrated again by the first command; 'empty'
 * for a test about what happens to a database nothing has touched yet.
 */
export async function cliDatabase(
  kind: DatabaseKind,
  start: 'empty' | 'seeded' = 'seeded',
): Promise<{ env: Env; dispose(): Promise<void> }> {
  const dir = scratchDir();
  const database = await freshDatabase(kind, start);
  const url =
    database.target.kind === 'postgres'
      ? database.target.url
      : `sqlite:${sqliteFile(dir.path, database.image)}`;
  return {
    env: {
      MODE: 'simulator',
      DATABASE_URL: url,
      DATA_DIR: dir.path,
      LOG_LEVEL: 'silent',
      // The cheapest password hashing a simulator allows (docs/configuration.md).
      PORTAL_PASSWORD_COST: '10',
    },
    async dispose() {
      await database.drop();
      dir.remove();
    },
  };
}

/** A SQLite file in `dir`: written from the image when there is one, else not made yet. */
export function sqliteFile(dir: string, image: Buffer | undefined): string {
  const path = join(dir, 'esim.sqlite');
  if (image !== undefined) writeFileSync(path, image);
  return path;
}

/** The HTTP app on the database a CLI environment points at, to check results through HTTP. */
export async function appFor(env: Env): Promise<{ app: FastifyInstance; close(): Promise<void> }> {
  const services = await openServices(loadConfig(env));
  const app = await buildApp(services.deps, { logLevel: 'silent' });
  await app.ready();
  return {
    app,
    async close() {
      await app.close();
      await services.close();
    },
  };
}

export interface Spawned {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** Starts bin/esim.js as a real process. */
export function spawnEsim(env: Env, ...argv: string[]): Spawned {
  return spawnEsimIn(undefined, env, ...argv);
}

/** Starts bin/esim.js as a real process in the given working directory. */
export function spawnEsimIn(cwd: string | undefined, env: Env, ...argv: string[]): Spawned {
  const child = spawn(process.execPath, [BIN, ...argv], {
    cwd,
    env: { PATH: process.env['PATH'], HOME: process.env['HOME'], ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => resolve(code)),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}
