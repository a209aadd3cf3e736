import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

// The rule that state changes only through the domain's use cases is kept by lint: outside
// src/domain/ and src/store/, importing a writing repository function or opening a transaction
// fails `npm run lint`. The rule knows writing functions by name, so this test holds the names
// to the code: every repository function that writes or locks rows (itself or through another)
// must be one the rule refuses. Then it lints probe files through the repository's own
// configuration, with the type information switched off (these rules need none).

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const repositories = join(root, 'src', 'store', 'repositories');

const WRITES = /\.(insertInto|updateTable|deleteFrom|forUpdate|transaction)\(/;

/** Each exported function of a repository file with the text up to the next export. */
function exportedFunctions(file: string): { name: string; body: string }[] {
  const text = readFileSync(join(repositories, file), 'utf8');
  return text.split(/\nexport /).flatMap((chunk) => {
    const name = /^(?:async )?function (\w+)/.exec(chunk)?.[1];
    return name === undefined ? [] : [{ name, body: chunk }];
  });
}

/** Repository functions that write or lock, directly or by calling one that does. */
function writingFunctions(): string[] {
  const all = readdirSync(repositories).flatMap(exportedFunctions);
  const writers = new Set(all.filter((f) => WRITES.test(f.body)).map((f) => f.name));
  for (let grew = true; grew;) {
    grew = false;
    for (const f of all) {
      if (writers.has(f.name)) continue;
      if ([...writers].some((w) => new RegExp(`\\b${w}\\(`).test(f.body))) {
        writers.add(f.name);
        grew = true;
      }
    }
  }
  return [...writers].sort();
}

const eslint = new ESLint({
  cwd: root,
  overrideConfig: {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { project: null, projectService: false } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/no-misused-promises': 'off',
      '@typescript-eslint/switch-exhaustiveness-check': 'off',
    },
  },
});

async function guardMessages(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, path) });
  // A probe that does not parse must fail the test, not pass it for want of a finding.
  return (result?.messages ?? [])
    .map((m) => (m.fatal === true ? `fatal: ${m.message}` : (m.ruleId ?? m.message)))
    .filter((id) => /^(no-restricted-imports|no-restricted-syntax|fatal: )/.test(id));
}

async function restrictedPattern(path: string): Promise<RegExp> {
  const config = (await eslint.calculateConfigForFile(join(root, path))) as {
    rules: Record<string, [string, { patterns: { importNamePattern: string }[] }]>;
  };
  const pattern = config.rules['no-restricted-imports']?.[1].patterns[0]?.importNamePattern;
  assert.ok(pattern !== undefined, `no writing-import restriction applies to ${path}`);
  return new RegExp(pattern);
}

const importOf = (name: string, file: string): string =>
  `import { ${name} } from '../../store/repositories/${file}';\nexport const f = ${name};\n`;

describe('the use-case guard (npm run lint)', () => {
  it('refuses every repository function that writes or locks', async () => {
    const writers = writingFunctions();
    assert.ok(writers.includes('insertHistory') && writers.includes('upsertBundles'));
    const restricted = await restrictedPattern('src/cli/commands/org.ts');
    const missed = writers.filter((name) => !restricted.test(name));
    assert.deepEqual(missed, [], 'name these with a writing verb, or list them as locking reads');
    for (const read of ['findOrganisationById', 'listAvailableBatches', 'listKeysInGrace']) {
      assert.equal(restricted.test(read), false, `${read} only reads`);
    }
  });

  it('fails a CLI command, a route or a worker that imports a writing function', async () => {
    for (const path of ['src/cli/commands/probe.ts', 'src/http/routes/esims/probe.ts']) {
      assert.deepEqual(
        await guardMessages(path, importOf('insertHistory', 'history-repository.js')),
        ['no-restricted-imports'],
      );
    }
    const ns = "import * as h from '../store/repositories/history-repository.js';\nexport { h };\n";
    assert.deepEqual(await guardMessages('src/workers/probe.ts', ns), ['no-restricted-imports']);
  });

  it('lets them read, and lets the domain and the store write', async () => {
    const read = importOf('findEsim', 'esim-repository.js');
    assert.deepEqual(await guardMessages('src/cli/commands/probe.ts', read), []);
    const write = importOf('insertHistory', 'history-repository.js');
    assert.deepEqual(await guardMessages('src/domain/esims/lifecycle/probe.ts', write), []);
    assert.deepEqual(await guardMessages('src/cli/commands/probe.test.ts', write), []);
  });

  it('fails a transaction opened anywhere but the runner and the store', async () => {
    const code = 'export const run = (db: { transaction(): unknown }) => db.transaction();\n';
    assert.deepEqual(await guardMessages('src/callbacks/probe.ts', code), ['no-restricted-syntax']);
    assert.deepEqual(await guardMessages('src/domain/money/probe.ts', code), [
      'no-restricted-syntax',
    ]);
    assert.deepEqual(await guardMessages('src/domain/runner/probe.ts', code), []);
    assert.deepEqual(await guardMessages('src/store/probe.ts', code), []);
  });

  it('lets an adapter write its own rows and nothing else', async () => {
    const own = importOf('insertProcessorCharge', 'payment-repository.js');
    assert.deepEqual(await guardMessages('src/payments/test-processor.ts', own), []);
    const other = importOf('insertDefaultCard', 'payment-repository.js');
    assert.deepEqual(await guardMessages('src/payments/test-processor.ts', other), [
      'no-restricted-imports',
    ]);
    const sms = importOf('insertSms', 'sms-repository.js');
    assert.deepEqual(await guardMessages('src/network/simulated-network.ts', sms), []);
    assert.deepEqual(await guardMessages('src/network/simulator.ts', sms), [
      'no-restricted-imports',
    ]);
  });
});
