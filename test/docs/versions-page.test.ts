import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { VERSIONS } from '../../src/http/versions/index.js';

// docs/versions.md reads in a terminal: a section per version served, in order, and no line
// wider than 100 characters (a wide table would not fit).

const PAGE = readFileSync(new URL('../../docs/versions.md', import.meta.url), 'utf8');

describe('docs/versions.md', () => {
  it('has a section for every version served, in order', () => {
    const sections = [...PAGE.matchAll(/^## v(2\.\d)\b/gm)].map((m) => m[1]);
    assert.deepEqual(
      sections,
      VERSIONS.map((v) => v.name),
    );
  });

  it('keeps every line within 100 characters', () => {
    const wide = PAGE.split('\n')
      .map((line, i) => ({ line: i + 1, length: [...line].length }))
      .filter((l) => l.length > 100);
    assert.deepEqual(wide, []);
  });
});
