import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp } from '../harness.js';
import { esim, scratchDir } from './helpers.js';

// `esim sim export` writes every API key in clear, password hashes, PINs and PUKs: the file is
// created readable by its user only (0600) under the usual umask, and a file it replaces ends
// 0600 too, as the database and its backups are.

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);

for (const kind of DATABASES) {
  describe(`esim sim export writes a private file [${kind}]`, () => {
    let t: TestApp;
    let url: string;
    const dir = scratchDir();
    const previous = process.umask(0o022);

    before(async () => {
      t = await startTestApp(kind);
      await t.createOrg({ balance: 100 });
      url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(async () => {
      process.umask(previous);
      await t.close();
      dir.remove();
    });

    it('creates the snapshot 0600, and makes a file it replaces 0600', async () => {
      const fresh = join(dir.path, 'snapshot.json');
      const run = await esim({}, 'sim', 'export', fresh, '--url', url);
      assert.equal(run.code, 0, run.err);
      assert.equal(mode(fresh), '600');
      const existing = join(dir.path, 'old.json');
      writeFileSync(existing, '{}', { mode: 0o644 });
      assert.equal(mode(existing), '644');
      const again = await esim({}, 'sim', 'export', existing, '--url', url);
      assert.equal(again.code, 0, again.err);
      assert.equal(mode(existing), '600');
      assert.ok(statSync(existing).size > 1000, 'the snapshot replaced the old file');
    });
  });
}
