import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
 * The installed package's module for a specifier, resolved by plain node from `project` as the
 * integrator's code would be: in this process, tsx would resolve the client package's specifiers
 * to its sources (tsconfig.json's paths).
 */
export async function installedModule<T>(project: string, specifier: string): Promise<T> {
  const script =
    "process.stdout.write(require('node:module').createRequire(process.argv[1]).resolve(process.argv[2]))";
  const args = ['-e', script, join(project, 'package.json'), specifier];
  const resolved = run(process.execPath, args, project).stdout;
  assert.ok(resolved.startsWith(join(project, 'node_modules')), resolved);
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
 * types are real.
 */
export function integratorTsconfig(files: string[]): string {
  return JSON.stringify({
    compilerOptions: {
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      target: 'ES2022',
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
