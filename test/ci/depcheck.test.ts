import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

// `npm run depcheck` runs dependency-cruiser with the repository's rules. These tests run the same
// command and rules on small source trees, so a rule that stopped matching (a bad path pattern, a
// dependency type dependency-cruiser no longer reports) fails here instead of passing silently.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cruiser = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Outcome {
  exitCode: number;
  /** `rule: importing file`, one per reported violation, sorted. */
  violations: string[];
}

/**
 * Writes `files` under `dir` and runs the check as `npm run depcheck` does (same rules, same
 * reporter, whose exit code is the number of errors).
 */
async function cruise(dir: string, files: Record<string, string>): Promise<Outcome> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return new Promise((done) => {
    execFile(
      process.execPath,
      [cruiser, 'src', '--config', join(root, '.dependency-cruiser.cjs')],
      { cwd: dir },
      (error, stdout, stderr) => {
        const exitCode = typeof error?.code === 'number' ? error.code : error ? -1 : 0;
        const violations = [...`${stdout}${stderr}`.matchAll(/error ([\w-]+): (\S+) →/g)]
          .map((m) => `${m[1] ?? ''}: ${m[2] ?? ''}`)
          .sort();
        done({ exitCode, violations });
      },
    );
  });
}

/** A tree with the repository's compiler settings and packages. */
async function freshTree(parent: string, name: string): Promise<string> {
  const dir = join(parent, name);
  await mkdir(dir, { recursive: true });
  await symlink(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ extends: join(root, 'tsconfig.json'), include: ['src'] }),
  );
  return dir;
}

describe('dependency rules (npm run depcheck)', () => {
  let parent = '';
  before(async () => {
    parent = await mkdtemp(join(tmpdir(), 'esim-depcheck-'));
  });
  after(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  it('fails on each forbidden import, naming the rule and the files', async () => {
    const dir = await freshTree(parent, 'forbidden');
    const outcome = await cruise(dir, {
      'src/domain/orders/uses-fastify.ts':
        "import fastify from 'fastify';\nexport const app = fastify;\n",
      'src/domain/orders/uses-route.ts':
        "import { route } from '../../http/route.js';\nexport const used = route;\n",
      'src/http/route.ts': 'export const route = 1;\n',
      'src/store/uses-rule.ts':
        "import { rule } from '../domain/orders/rule.js';\nexport const used = rule;\n",
      'src/domain/orders/rule.ts': 'export const rule = (n: number): number => n + 1;\n',
      // A file outside the noun folders, a runner that knows a noun, an error catalogue that
      // imports, and a store naming a domain type other than through its one door.
      'src/domain/loose.ts': "import { rule } from './orders/rule.js';\nexport const r = rule;\n",
      'src/domain/runner/run.ts':
        "import { rule } from '../orders/rule.js';\nexport const run = rule;\n",
      'src/domain/errors/error-codes.ts':
        "import { rule } from '../orders/rule.js';\nexport const codes = [rule];\n",
      'src/store/names-type.ts':
        "import type { Rule } from '../domain/orders/types.js';\nexport type Named = Rule;\n",
      'src/domain/orders/types.ts': 'export type Rule = number;\n',
      'src/callbacks/builds-sql.ts':
        "import { sql } from 'kysely';\nexport const now = sql`now()`;\n",
      'src/workers/a.ts': "import { b } from './b.js';\nexport const a = (): number => b();\n",
      'src/workers/b.ts': "import { a } from './a.js';\nexport const b = (): number => a();\n",
      // A cycle of type imports only: harmless at run time, still a tangle.
      'src/network/x.ts': "import type { Y } from './y.js';\nexport type X = { y?: Y };\n",
      'src/network/y.ts': "import type { X } from './x.js';\nexport type Y = { x?: X };\n",
      // The domain reaching the HTTP layer through another module, naming AppDeps; the store's
      // one door up naming another domain module, and the store naming a surface.
      'src/domain/orders/via-callbacks.ts':
        "import type { Body } from '../../callbacks/body.js';\nexport type B = Body;\n",
      'src/callbacks/body.ts':
        "import type { route } from '../http/route.js';\nexport type Body = typeof route;\n",
      'src/domain/orders/uses-deps.ts':
        "import type { AppDeps } from '../../deps.js';\nexport type D = AppDeps;\n",
      'src/deps.ts': 'export interface AppDeps {\n  readonly n: number;\n}\n',
      'src/store/domain-types.ts': "export type { Rule } from '../domain/orders/types.js';\n",
      'src/store/names-route.ts':
        "import type { route } from '../http/route.js';\nexport type R = typeof route;\n",
      // The domain naming an adapter's interface instead of declaring its port; the portal
      // borrowing from the HTTP layer; a library under the domain naming the domain.
      'src/domain/money/top-up.ts':
        "import type { Gateway } from '../../payments/gateway.js';\nexport type G = Gateway;\n",
      'src/payments/gateway.ts': 'export interface Gateway {\n  readonly name: string;\n}\n',
      'src/portal/page.ts':
        "import { route } from '../http/route.js';\nexport const page = route;\n",
      'src/security/names-rule.ts':
        "import type { Rule } from '../domain/orders/types.js';\nexport type S = Rule;\n",
      // A surface naming the store, if only a type; a surface excepted for one store module
      // importing another.
      'src/http/reads-store.ts':
        "import type { Named } from '../store/names-type.js';\nexport type N = Named;\n",
      'src/cli/main.ts':
        "import { used } from '../store/uses-rule.js';\nexport const main = used;\n",
    });

    assert.deepEqual(outcome.violations, [
      'adapters-below-surfaces: src/callbacks/body.ts',
      'domain-below-composition: src/domain/orders/uses-deps.ts',
      'domain-by-noun: src/domain/loose.ts',
      'domain-never-reaches-http: src/domain/orders/uses-route.ts',
      'domain-never-reaches-http: src/domain/orders/via-callbacks.ts',
      'domain-not-adapters: src/domain/money/top-up.ts',
      'domain-not-adapters: src/domain/orders/via-callbacks.ts',
      'domain-not-surfaces: src/domain/orders/uses-fastify.ts',
      'domain-not-surfaces: src/domain/orders/uses-route.ts',
      'errors-at-the-bottom: src/domain/errors/error-codes.ts',
      'libraries-below-domain: src/security/names-rule.ts',
      'no-cycles: src/workers/a.ts',
      'no-type-cycles: src/network/x.ts',
      'no-type-cycles: src/workers/a.ts',
      'portal-not-http: src/portal/page.ts',
      'runner-below-nouns: src/domain/runner/run.ts',
      'sql-only-in-store: src/callbacks/builds-sql.ts',
      'store-below-everything: src/store/names-route.ts',
      'store-domain-types-only-stored: src/store/domain-types.ts',
      'store-not-domain-rules: src/store/uses-rule.ts',
      'store-up-one-door: src/store/names-type.ts',
      'store-up-one-door: src/store/uses-rule.ts',
      'surface-store-exception-busy-errors: src/cli/main.ts',
      'surfaces-read-through-domain: src/http/reads-store.ts',
    ]);
    assert.equal(outcome.exitCode, outcome.violations.length);
  });

  it('passes type-only imports, SQL inside the store and one-way layers', async () => {
    const dir = await freshTree(parent, 'allowed');
    const outcome = await cruise(dir, {
      'src/domain/orders/order.ts':
        "import { findOrder } from '../../store/order-repository.js';\nexport const order = findOrder;\n",
      'src/domain/esims/lifecycle/states.ts': "export type OrderState = 'placed' | 'refunded';\n",
      'src/domain/runner/run.ts':
        "import { DomainError } from '../errors/error-codes.js';\nexport const run = DomainError;\n",
      'src/domain/errors/error-codes.ts': 'export class DomainError extends Error {}\n',
      'src/domain/stored/types.ts':
        "export type { OrderState } from '../esims/lifecycle/states.js';\n",
      'src/store/domain-types.ts': "export type { OrderState } from '../domain/stored/types.js';\n",
      'src/store/order-repository.ts': [
        "import { sql } from 'kysely';",
        "import type { OrderState } from './domain-types.js';",
        'export const findOrder = (state: OrderState): unknown => sql`select ${state}`;',
        '',
      ].join('\n'),
      'src/http/route.ts': [
        "import type { Kysely } from 'kysely';",
        "import type { FastifyInstance } from 'fastify';",
        "import { order } from '../domain/orders/order.js';",
        'export const route = (app: FastifyInstance, db: Kysely<unknown>): unknown => [app, db, order];',
        '',
      ].join('\n'),
      'src/workers/a.ts': "import type { B } from './b.js';\nexport type A = { b?: B };\n",
      'src/workers/b.ts': "import { a } from './c.js';\nexport type B = { a: typeof a };\n",
      'src/workers/c.ts': 'export const a = 1;\n',
      // A port in the domain, its adapter importing it, the surfaces naming both.
      'src/domain/money/gateway.ts': 'export interface Gateway {\n  readonly name: string;\n}\n',
      'src/payments/processor.ts': [
        "import type { Gateway } from '../domain/money/gateway.js';",
        "import { order } from '../domain/orders/order.js';",
        'export const processor: Gateway = { name: String(order) };',
        '',
      ].join('\n'),
      'src/callbacks/headers.ts': "export const HEADERS = { eventId: 'X-Event-Id' };\n",
      'src/http/document.ts': [
        "import { HEADERS } from '../callbacks/headers.js';",
        "import { processor } from '../payments/processor.js';",
        'export const document = [HEADERS, processor];',
        '',
      ].join('\n'),
      'src/portal/page.ts':
        "import { order } from '../domain/orders/order.js';\nexport const page = order;\n",
      // A surface's excepted store module, and a surface's test reading the store.
      'src/store/sqlite-busy.ts': 'export const isBusyError = (e: unknown): boolean => e === 5;\n',
      'src/cli/main.ts':
        "import { isBusyError } from '../store/sqlite-busy.js';\nexport const busy = isBusyError;\n",
      'src/http/route.test.ts':
        "import { findOrder } from '../store/order-repository.js';\nexport const read = findOrder;\n",
    });

    assert.deepEqual(outcome.violations, []);
    assert.equal(outcome.exitCode, 0);
  });
});
