import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp } from '../harness.js';
import type { TestApp } from '../harness.js';

// GET / points at the documentation, every OpenAPI document, the portal and the health checks:
// a small page for a browser, JSON for anything else.

describe('GET /', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('sqlite');
  });
  after(() => t.close());

  it('answers a browser with a page of links that all answer', async () => {
    const res = await t.app.inject({
      url: '/',
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    const hrefs = [...res.body.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1] ?? '');
    const documents = ['2.1', '2.2', '2.3', '2.4', '2.5'].map((v) => `/v${v}/openapi.json`);
    for (const wanted of ['/docs', ...documents, '/portal', '/healthz', '/readyz']) {
      assert.ok(hrefs.includes(wanted), `${wanted} in ${hrefs.join(' ')}`);
    }
    for (const href of hrefs) {
      const target = await t.app.inject({ url: href });
      assert.ok(target.statusCode < 400, `${href}: ${target.statusCode}`);
    }
  });

  it('answers JSON by default and to Accept: application/json', async () => {
    for (const accept of [undefined, 'application/json', '*/*']) {
      const res = await t.app.inject({ url: '/', headers: accept === undefined ? {} : { accept } });
      assert.equal(res.statusCode, 200);
      const body = res.json<{ mode: string; links: { rel: string; href: string }[] }>();
      assert.equal(body.mode, 'simulator');
      assert.deepEqual(
        body.links.filter((l) => l.rel !== 'openapi').map((l) => l.href),
        ['/docs', '/portal', '/healthz', '/readyz', '/_sim/clock'],
      );
    }
  });

  it('leaves the control plane out in production', async () => {
    const p = await startTestApp('sqlite', { mode: 'production' });
    try {
      const body = (await p.app.inject({ url: '/' })).json<{ links: { href: string }[] }>();
      assert.ok(!body.links.some((l) => l.href.startsWith('/_sim')));
    } finally {
      await p.close();
    }
  });
});
