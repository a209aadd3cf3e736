import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// The documentation page works where it is printed: the OpenAPI server is relative unless
// PUBLIC_BASE_URL is set, preflights are answered before authentication, and CORS follows
// CORS_ORIGINS (any origin in simulator mode, none in production unless configured).

const preflight = (origin: string | undefined) => ({
  method: 'OPTIONS' as const,
  url: '/v2.1/organisation/balance?amount=1000',
  headers: {
    ...(origin === undefined ? {} : { origin }),
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'x-api-key, content-type',
  },
});

for (const kind of DATABASES) {
  describe(`CORS, preflight and the OpenAPI server [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      t = await startTestApp(kind); // simulator defaults: CORS for any origin
      org = await t.createOrg({ balance: 1000 });
    });
    after(() => t.close());

    it('answers a preflight without an API key, allowing the key header', async () => {
      const res = await t.app.inject(preflight('http://localhost:3000'));
      assert.equal(res.statusCode, 204);
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.match(String(res.headers['access-control-allow-methods']), /POST/);
      assert.match(String(res.headers['access-control-allow-headers']), /X-API-Key/i);
      const bare = await t.app.inject({ method: 'OPTIONS', url: '/v2.1/esims' });
      assert.equal(bare.statusCode, 204);
    });

    it('adds CORS headers to answers, errors included, and exposes the paging headers', async () => {
      const res = await t.request(org.apiKey, {
        method: 'GET',
        url: '/v2.1/catalogue?perPage=1',
        headers: { origin: 'http://localhost:3000' },
      });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.match(String(res.headers['access-control-expose-headers']), /X-Total-Count/);
      assert.match(String(res.headers['access-control-expose-headers']), /Link/);
      assert.match(String(res.headers['link']), /^<\/v2\.1\/catalogue\?/, 'relative paging links');
      const denied = await t.app.inject({
        method: 'GET',
        url: '/v2.1/organisation',
        headers: { origin: 'http://localhost:3000' },
      });
      assert.equal(denied.statusCode, 403);
      assert.equal(denied.headers['access-control-allow-origin'], '*');
    });

    it('serves a relative server, so "Try it out" calls the address the page came from', async () => {
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
      const doc = (await (await fetch(`${address}/docs/json`)).json()) as {
        servers: { url: string }[];
      };
      assert.deepEqual(
        doc.servers.map((s) => s.url),
        ['/'],
      );
      const page = await fetch(`${address}/docs/`);
      assert.equal(page.status, 200);
      // What the page does: resolve the server against the document's address and call it.
      const base = new URL(doc.servers[0]?.url ?? '', `${address}/docs/json`);
      const res = await fetch(new URL('v2.1/organisation', base), {
        headers: { 'x-api-key': org.apiKey },
      });
      assert.equal(res.status, 200);
    });
  });

  describe(`CORS configured [${kind}]`, () => {
    let off: TestApp;
    let listed: TestApp;

    before(async () => {
      off = await startTestApp(kind, { corsOrigins: [] });
      listed = await startTestApp(kind, {
        corsOrigins: ['https://app.example.com'],
        publicBaseUrl: 'https://esim.example.com',
      });
    });
    after(async () => {
      await off.close();
      await listed.close();
    });

    it('answers preflights with no CORS headers when CORS is off', async () => {
      const res = await off.app.inject(preflight('https://app.example.com'));
      assert.equal(res.statusCode, 204);
      assert.equal(res.headers['access-control-allow-origin'], undefined);
    });

    it('allows only the listed origins', async () => {
      const allowed = await listed.app.inject(preflight('https://app.example.com'));
      assert.equal(allowed.statusCode, 204);
      assert.equal(allowed.headers['access-control-allow-origin'], 'https://app.example.com');
      const other = await listed.app.inject(preflight('https://evil.example'));
      assert.equal(other.statusCode, 204);
      assert.equal(other.headers['access-control-allow-origin'], undefined);
    });

    it('echoes a listed origin on answers, varies by Origin, and counts preflights', async () => {
      const get = (app: TestApp, origin?: string) =>
        app.app.inject({
          method: 'GET',
          url: '/healthz',
          headers: origin === undefined ? {} : { origin },
        });
      const allowed = await get(listed, 'https://app.example.com');
      assert.equal(allowed.statusCode, 200);
      assert.equal(allowed.headers['access-control-allow-origin'], 'https://app.example.com');
      assert.equal(allowed.headers['vary'], 'Origin');
      assert.match(String(allowed.headers['access-control-expose-headers']), /X-Request-Id/);
      for (const res of [await get(listed, 'https://evil.example'), await get(listed)]) {
        assert.equal(res.headers['access-control-allow-origin'], undefined);
        assert.equal(res.headers['vary'], 'Origin');
        assert.match(String(res.headers['access-control-expose-headers']), /Link/);
      }
      const none = await get(off, 'https://app.example.com');
      assert.equal(none.headers['access-control-allow-origin'], undefined);
      assert.equal(none.headers['access-control-expose-headers'], undefined);
      assert.equal(none.headers['vary'], undefined);

      // A preflight passes the app-wide hooks too: it has a request id and is counted.
      const pre = await listed.app.inject(preflight('https://app.example.com'));
      assert.match(String(pre.headers['x-request-id']), /^[0-9a-f-]{36}$/);
      assert.equal(
        pre.headers['access-control-expose-headers'],
        allowed.headers['access-control-expose-headers'],
      );
      const metrics = await listed.app.inject({ method: 'GET', url: '/metrics' });
      assert.match(
        metrics.body,
        /esim_http_requests_total\{method="OPTIONS",route="\*",status="204"\} [1-9]/,
      );
    });

    it('uses PUBLIC_BASE_URL as the server when it is set', async () => {
      const doc = (await listed.app.inject({ url: '/v2.1/openapi.json' })).json() as {
        servers: { url: string }[];
      };
      assert.deepEqual(
        doc.servers.map((s) => s.url),
        ['https://esim.example.com'],
      );
    });
  });
}
