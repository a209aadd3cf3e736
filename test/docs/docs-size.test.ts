import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';

// The guides stay short enough to be read: the Markdown of docs/ (not the generated docs/api/
// files nor the screenshots) under 300 KB in all. A new fact finds its place in the guide it
// belongs to and links to the others rather than repeating them.

const DOCS = new URL('../../docs/', import.meta.url).pathname;
const BUDGET = 300_000;

it('keeps the Markdown of docs/ under 300 KB', () => {
  const pages = readdirSync(DOCS).filter((f) => f.endsWith('.md'));
  const bytes = pages.reduce((sum, f) => sum + statSync(join(DOCS, f)).size, 0);
  assert.ok(pages.length > 10, 'the guides are found');
  assert.ok(bytes < BUDGET, `docs/*.md hold ${bytes} bytes, over ${BUDGET}`);
});
