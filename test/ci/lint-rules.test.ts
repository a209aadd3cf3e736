import assert from 'node:assert/strict';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

// `npm run lint` must keep failing on the breaches its type-aware rules exist for. This lints a
// fixture with one breach of each through the repository's own configuration; only the program
// the rules read types from is narrowed to the fixture, to keep the test quick.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const fixture = join(root, 'test', 'fixtures', 'lint-rules', 'breaches.ts');

describe('type-aware lint rules (npm run lint)', () => {
  it('reports each breach in the fixture under its rule', async () => {
    const eslint = new ESLint({
      cwd: root,
      ignore: false,
      overrideConfig: {
        files: ['**/*.ts'],
        languageOptions: {
          parserOptions: { project: join(root, 'test', 'fixtures', 'lint-rules', 'tsconfig.json') },
        },
      },
    });
    const [result] = await eslint.lintFiles([fixture]);
    const found = (result?.messages ?? []).map((m) => `${m.line} ${m.ruleId ?? m.message}`);

    assert.deepEqual(found, [
      '7 @typescript-eslint/switch-exhaustiveness-check',
      '19 @typescript-eslint/no-floating-promises',
      '23 @typescript-eslint/no-misused-promises',
      '27 @typescript-eslint/no-misused-promises',
    ]);
  });

  it('skips the fixture in the ordinary run', async () => {
    const eslint = new ESLint({ cwd: root });
    assert.equal(await eslint.isPathIgnored(fixture), true);
  });
});
