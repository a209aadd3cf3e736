import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// GET / of a version ("Get API details", v2.3 and later): the version of the path and the
// organisation of the key; the service root stays the links page.

for (const kind of DATABASES) {
  describe(`GET / API details [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      t = await startTestApp(kind);
      org = await t.createOrg({ name: 'Details Travel' });
    });
    after(() => t.close());

    it('answers the version of the path and the organisation of the key, with or without the slash', async () => {
      for (const version of ['2.3', '2.4', '2.5']) {
        for (const url of [`/v${version}/`, `/v${version}`]) {
          const res = await t.request(org.apiKey, { method: 'GET', url });
          assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
          assert.deepEqual(res.json(), {
            name: 'eSIM Bundle Service',
            version,
            organisation: 'Details Travel',
            openapi: `/v${version}/openapi.json`,
            documentation: '/docs',
          });
        }
      }
    });

    it('needs a valid key, and is not on v2.1 or v2.2', async () => {
      const missing = await t.request(undefined, { method: 'GET', url: '/v2.3/' });
      assert.equal(missing.statusCode, 403);
      const wrong = await t.request('not-a-key', { method: 'GET', url: '/v2.4/' });
      assert.equal(wrong.statusCode, 403);
      for (const url of ['/v2.1/', '/v2.2/']) {
        assert.equal((await t.request(org.apiKey, { method: 'GET', url })).statusCode, 404, url);
      }
    });

    it('leaves the service root to the links page', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/' });
      assert.equal(res.statusCode, 200);
      assert.ok(Array.isArray(res.json<{ links: unknown[] }>().links), res.body);
    });
  });
}
