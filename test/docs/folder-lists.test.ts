import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

// The folder lists of README.md and docs/architecture.md against the tree: a code block whose
// first line is a folder (`./`, `src/`, `src/workers/`) lists that folder's entries, one per
// line, indented by two spaces. Every entry listed must exist, and every folder of a listed folder
// must be listed (the repository's own: not hidden, not ignored by git). The domain's noun table
// is held the same way.

const ROOT = new URL('../../', import.meta.url).pathname;

interface Listing {
  /** The folder the block lists, relative to the repository. */
  readonly folder: string;
  /** Its entries as written (`domain/`, `main.ts`), relative to the folder. */
  readonly entries: string[];
}

/** The folder listings of a Markdown file: fenced blocks whose first line is `<path>/`. */
function listings(file: string): Listing[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].flatMap((m) => {
    if (m[1] !== '') return [];
    const [first = '', ...lines] = (m[2] ?? '').split('\n');
    const folder = /^([\w./-]+\/)\s*$/.exec(first)?.[1];
    if (folder === undefined) return [];
    const entries = lines.flatMap((line) => /^ {2}(\S+)/.exec(line)?.[1] ?? []);
    return [{ folder, entries }];
  });
}

/** What .gitignore names whole (`node_modules`, `dist/`): folders that are not the repository's. */
const IGNORED = new Set(
  readFileSync(join(ROOT, '.gitignore'), 'utf8')
    .split('\n')
    .filter((line) => /^[\w.-]+\/?$/.test(line))
    .map((line) => line.replace(/\/$/, '')),
);

/** The repository's folders directly inside a folder of it. */
function subfolders(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !IGNORED.has(e.name))
    .map((entry) => `${entry.name}/`);
}

describe('the folder lists of the docs', () => {
  for (const [file, folder] of [
    ['README.md', './'],
    ['docs/architecture.md', 'src/'],
  ] as const) {
    it(`${file}: every listed entry exists, every folder of a listed folder is listed`, () => {
      const found = listings(file);
      assert.ok(
        found.some((l) => l.folder === folder),
        `${file} lists ${folder}`,
      );
      for (const { folder, entries } of found) {
        const gone = entries.filter((e) => !existsSync(join(ROOT, folder, e)));
        assert.deepEqual(gone, [], `${file}: listed under ${folder}, not in the tree`);
        // `packages/client/` lists the folder packages/.
        const unlisted = subfolders(folder).filter((f) => !entries.some((e) => e.startsWith(f)));
        assert.deepEqual(unlisted, [], `${file}: folders of ${folder} missing from its list`);
      }
    });
  }

  it('docs/architecture.md: the domain table names every folder of src/domain/, and no other', () => {
    const text = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const section = text.split(/^## /m).find((s) => s.startsWith('The domain by noun')) ?? '';
    const rows = [...section.matchAll(/^\| `([\w-]+\/)` +\|/gm)].map((m) => m[1] ?? '');
    assert.deepEqual([...rows].sort(), subfolders('src/domain/').sort());
  });

  it('docs/architecture.md: the workers list names every module of src/workers/', () => {
    const workers = listings('docs/architecture.md').find((l) => l.folder === 'src/workers/');
    assert.ok(workers !== undefined, 'docs/architecture.md lists src/workers/');
    const modules = readdirSync(join(ROOT, 'src/workers')).filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
    );
    assert.deepEqual([...workers.entries].sort(), modules.sort());
  });
});
