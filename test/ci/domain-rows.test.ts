import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

// Rows stay in the store: `npm run lint` refuses a column name in src/domain/ (ROW_COLUMNS in
// eslint.config.js, the columns read from src/store/schema.ts). This lints probe files to show
// the rule at work, and checks that each file still excepted from it still needs to be.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

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

const COLUMN_MESSAGE = /^A column name in the domain/;

/** The lines of `code`, linted as the file at `path`, on which a column name is reported. */
async function columnLines(path: string, code: string): Promise<number[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, path) });
  const messages = result?.messages ?? [];
  // A probe that does not parse must fail the test, not pass it for want of a finding.
  assert.deepEqual(
    messages.filter((m) => m.fatal === true).map((m) => m.message),
    [],
  );
  return messages.filter((m) => COLUMN_MESSAGE.test(m.message)).map((m) => m.line);
}

async function usesColumnRule(path: string): Promise<boolean> {
  const config = (await eslint.calculateConfigForFile(join(root, path))) as {
    rules: Record<string, unknown[] | undefined>;
  };
  const options = config.rules['no-restricted-syntax'] ?? [];
  return options.some(
    (o) =>
      typeof o === 'object' &&
      o !== null &&
      COLUMN_MESSAGE.test(String((o as { message?: unknown }).message)),
  );
}

function domainFiles(dir = join(root, 'src', 'domain')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return domainFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')
      ? [relative(root, path)]
      : [];
  });
}

describe('rows stay in the store (npm run lint)', () => {
  it('reports a column read, written or named in a domain file, the runner too', async () => {
    const probe = [
      "import type { Assignment } from './lifecycle/assignment.js';",
      'export const used = (row: { used_bytes: number }) => row.used_bytes;',
      "export const key = 'bundle_name';",
      "export type Start = Pick<Assignment & { start_time: string }, 'start_time'>;",
      'export const changes = { updated_at: 1, createdAt: 2 };',
    ].join('\n');
    assert.deepEqual(await columnLines('src/domain/esims/probe.ts', probe), [2, 2, 3, 4, 4, 5]);
    assert.deepEqual(await columnLines('src/domain/runner/probe.ts', probe), [2, 2, 3, 4, 4, 5]);
  });

  it('leaves the domain’s own snake_case values alone', async () => {
    const probe = [
      "export const code = 'invalid_iccid';",
      "export const kind = 'test_credit_expiry';",
      'export const entry = { bundleName: 1, remainingBytes: 2, organisationId: 3 };',
    ].join('\n');
    assert.deepEqual(await columnLines('src/domain/money/probe.ts', probe), []);
  });

  it('applies outside the domain nowhere', async () => {
    const probe = 'export const used = (row: { used_bytes: number }) => row.used_bytes;';
    assert.deepEqual(await columnLines('src/store/repositories/probe.ts', probe), []);
    assert.deepEqual(await columnLines('src/http/routes/probe.ts', probe), []);
  });

  it('excepts only domain files that still name a column', async () => {
    const excepted: string[] = [];
    for (const file of domainFiles()) {
      if (await usesColumnRule(file)) continue;
      excepted.push(file);
      const lines = await columnLines(
        'src/domain/esims/probe.ts',
        readFileSync(join(root, file), 'utf8'),
      );
      assert.ok(
        lines.length > 0,
        `${file} names no column any more: take it out of ROWS_IN_DOMAIN_STILL in eslint.config.js`,
      );
    }
    // The list only shrinks: a file joins it only with a reason written beside it.
    assert.ok(
      excepted.length <= 2,
      `more domain files excepted than before: ${excepted.join(', ')}`,
    );
  });
});
