import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

// The folder lists of README.md and docs/architecture.md against the tree: a code block whose
// first line is a folder (`src/`, `src/workers/`) lists that folder's entries, one per line, a
// line with no indent naming another folder of the repository. Every entry listed must exist, and
// every folder of a listed folder must be listed. The domain's noun table is held the same way.

const ROOT = new URL('../../', import.meta.url).pathname;

interface Listing {
  /** The folder the block lists, relative to the repository. */
  readonly folder: string;
  /** Its entries as written (`domain/`, `main.ts`), relative to the folder. */
  readonly entries: string[];
  /** Other folders the block names at the top level (`test/`, `bench/`). */
  readonly roots: string[];
}

/** The folder listings of a Markdown file: fenced blocks whose first line is `<path>/`. */
function listings(file: string): Listing[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/^```\n([\s\S]*?)^```$/gm)].flatMap((m) => {
    const [first = '', ...lines] = (m[1] ?? '').split('\n');
    const folder = /^([\w./-]+\/)\s*$/.exec(first)?.[1];
    if (folder === undefined) return [];
    const entries: string[] = [];
    const roots: string[] = [];
    for (const line of lines) {
      const entry = /^ {2}(\S+)/.exec(line)?.[1];
      if (entry !== undefined) entries.push(entry);
      const root = /^([\w./-]+\/)(\s|$)/.exec(line)?.[1];
      if (root !== undefined) roots.push(root);
    }
    return [{ folder, entries, roots }];
  });
}

/** The folders directly inside a folder of the repository. */
function subfolders(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${entry.name}/`);
}

describe('the folder lists of the docs', () => {
  for (const file of ['README.md', 'docs/architecture.md']) {
    it(`${file}: every listed entry exists, every folder of a listed folder is listed`, () => {
      const found = listings(file);
      assert.ok(
        found.some((l) => l.folder === 'src/'),
        `${file} lists src/`,
      );
      for (const { folder, entries, roots } of found) {
        const gone = [
          ...entries.filter((e) => !existsSync(join(ROOT, folder, e))).map((e) => folder + e),
          ...roots.filter((r) => !existsSync(join(ROOT, r))),
        ];
        assert.deepEqual(gone, [], `${file}: listed under ${folder}, not in the tree`);
        const unlisted = subfolders(folder).filter((f) => !entries.includes(f));
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
