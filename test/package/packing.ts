import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// What the package tests share: packing a package of this repository, running npm with its
// output kept, and reading what an installation put in node_modules.

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLIENT_DIR = join(ROOT, 'packages', 'client');
export const VERSIONS = ['2.1', '2.2', '2.3', '2.4', '2.5'] as const;

export interface Ran {
  readonly stdout: string;
  readonly stderr: string;
}

export function run(command: string, args: string[], cwd: string): Ran {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  assert.equal(result.status, 0, `${command} ${args.join(' ')}:\n${result.stderr}${result.stdout}`);
  return { stdout: result.stdout, stderr: result.stderr };
}

/** Where a scratch folder goes in memory: /dev/shm, if mounted executable with room to spare. */
function memoryDir(): string | undefined {
  const shm = '/dev/shm';
  if (!existsSync('/proc/mounts') || !existsSync(shm)) return undefined;
  const mount = readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .find((fields) => fields[1] === shm);
  if (mount === undefined || (mount[3] ?? '').split(',').includes('noexec')) return undefined;
  const { bavail, bsize } = statfsSync(shm);
  return bavail * bsize >= 2 ** 30 ? shm : undefined;
}

/**
 * A scratch folder for an installation, in memory where the machine has room (else in the
 * temporary directory): an installation writes some 100 MB of files, which on a disk cost the
 * kernel seconds of processor time, and what it proves does not depend on where the folder is.
 */
export function installScratchDir(): { path: string; remove(): void } {
  const path = mkdtempSync(join(memoryDir() ?? tmpdir(), 'esim-package-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export interface Packed {
  /** The tarball's path. */
  readonly tarball: string;
  /** The paths inside the package, e.g. dist/verify.js. */
  readonly files: string[];
}

/**
 * `npm pack` of the package in `dir` (the repository's root or packages/client) into `into`, from
 * what the build made: --ignore-scripts, so that `prepare`/`prepack` do not build it again.
 */
export function pack(dir: string, into: string): Packed {
  const args = ['pack', '--ignore-scripts', '--json', '--pack-destination', into];
  const [packed] = JSON.parse(run('npm', args, dir).stdout) as {
    filename: string;
    files: { path: string }[];
  }[];
  assert.ok(packed !== undefined);
  return { tarball: join(into, packed.filename), files: packed.files.map((f) => f.path) };
}

export interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  scripts?: Record<string, string>;
  gypfile?: boolean;
}

export function manifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
}

/** Every package an installation put under `project`/node_modules, nested ones included. */
export function installedPackages(project: string): { dir: string; manifest: Manifest }[] {
  const found: { dir: string; manifest: Manifest }[] = [];
  const walk = (modules: string) => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const dir = join(modules, entry.name);
      if (entry.name.startsWith('@')) {
        walk(dir);
        continue;
      }
      if (existsSync(join(dir, 'package.json'))) found.push({ dir, manifest: manifest(dir) });
      walk(join(dir, 'node_modules'));
    }
  };
  walk(join(project, 'node_modules'));
  return found;
}

/**
 * Where each specifier resolves from `project`, resolved by plain node (one process for all of
 * them) as the integrator's code would be: in this process, tsx would resolve the client
 * package's specifiers to its sources (tsconfig.json's paths).
 */
export function resolveInstalled(project: string, specifiers: readonly string[]): string[] {
  const script =
    "const r = require('node:module').createRequire(process.argv[1]); process.stdout.write(JSON.stringify(process.argv.slice(2).map((s) => r.resolve(s))))";
  const args = ['-e', script, join(project, 'package.json'), ...specifiers];
  const resolved = JSON.parse(run(process.execPath, args, project).stdout) as string[];
  for (const path of resolved) assert.ok(path.startsWith(join(project, 'node_modules')), path);
  return resolved;
}

/** The installed package's module for a specifier (see resolveInstalled). */
export async function installedModule<T>(project: string, specifier: string): Promise<T> {
  const [resolved] = resolveInstalled(project, [specifier]);
  assert.ok(resolved !== undefined);
  return (await import(pathToFileURL(resolved).href)) as T;
}

/** The ```ts blocks of a Markdown text. */
export function typescriptBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
}

/**
 * A tsconfig for an integrator's project: strict, Node's module resolution, the checkout's
 * @types/node (an integrator's project has its own). skipLibCheck: checking @types/node takes
 * three times as long, and the `@ts-expect-error` lines of the checked code show the packaged
 * types are real. `lib` for a project that runs on Node.js only (as @tsconfig/node20 sets it:
 * no DOM declarations, which take a quarter of the check); the target's default otherwise.
 */
export function integratorTsconfig(files: string[], lib?: string[]): string {
  return JSON.stringify({
    compilerOptions: {
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      target: 'ES2022',
      ...(lib === undefined ? {} : { lib }),
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      typeRoots: [join(ROOT, 'node_modules', '@types')],
      types: ['node'],
    },
    files,
  });
}

/** Runs the checkout's tsc in `project`. */
export function typecheck(project: string): void {
  run(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'],
    project,
  );
}
