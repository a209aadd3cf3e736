import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registeredRoutes } from '../../src/http/openapi.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// Authentication as the interface decisions describe it: X-API-Key on every method, api_key in
// the query on GET/HEAD only, 403 {message} for anything else.

/** Every authenticated route, with its path parameters filled in. */
function apiRoutes(t: TestApp): { method: string; url: string }[] {
  return registeredRoutes(t.app)
    .filter((r) => r.url.startsWith('/v2.1/') && r.url !== '/v2.1/openapi.json')
    .map((r) => ({
      method: r.method,
      url: r.url.replace(/:iccid/g, '8944000000000000003').replace(/:[A-Za-z]+/g, 'x'),
    }));
}

for (const kind of DATABASES) {
  describe(`authentication [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let other: TestOrg;

    before(async () => {
      t = await startTestApp(kind);
      org = await t.createOrg({ name: 'Key Holder', balance: 5_000 });
      other = await t.createOrg({ name: 'Someone Else' });
    });
    after(() => t.close());

    const nameOf = async (res: { json(): unknown }) =>
      (res.json() as { organisations: { name: string }[] }).organisations[0]?.name;

    it('accepts a good key in the header and in the query on GET and HEAD', async () => {
      const byHeader = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' });
      assert.equal(byHeader.statusCode, 200);
      assert.equal(await nameOf(byHeader), 'Key Holder');
      const byQuery = await t.app.inject({
        method: 'GET',
        url: `/v2.1/organisation?api_key=${encodeURIComponent(other.apiKey)}`,
      });
      assert.equal(byQuery.statusCode, 200);
      assert.equal(await nameOf(byQuery), 'Someone Else');
      const head = await t.app.inject({
        method: 'HEAD',
        url: `/v2.1/organisation?api_key=${encodeURIComponent(org.apiKey)}`,
      });
      assert.equal(head.statusCode, 200);
    });

    it('prefers the header when both are sent', async () => {
      const res = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/organisation?api_key=${encodeURIComponent(other.apiKey)}`,
      });
      assert.equal(await nameOf(res), 'Key Holder');
    });

    it('answers 403 {message} for a missing, empty, wrong or altered key', async () => {
      const cases: [string, Record<string, string>][] = [
        ['/v2.1/organisation', {}],
        ['/v2.1/organisation', { 'x-api-key': '' }],
        ['/v2.1/organisation?api_key=', {}],
        ['/v2.1/organisation', { 'x-api-key': 'esim_wrong' }],
        ['/v2.1/organisation', { 'x-api-key': `${org.apiKey}x` }],
        ['/v2.1/organisation', { 'x-api-key': org.apiKey.toUpperCase() }],
        [`/v2.1/organisation?api_key=${encodeURIComponent(org.apiKey.slice(0, -1))}`, {}],
      ];
      for (const [url, headers] of cases) {
        const res = await t.app.inject({ method: 'GET', url, headers });
        assert.equal(res.statusCode, 403, `${url} ${JSON.stringify(headers)}`);
        const body = res.json() as { message: string };
        assert.equal(typeof body.message, 'string');
        assert.ok(!body.message.includes(org.apiKey.slice(5, 20)), 'the key is not echoed');
      }
    });

    it('requires a key on every route under the base path', async () => {
      const routes = apiRoutes(t);
      assert.ok(routes.length > 0);
      for (const { method, url } of routes) {
        const res = await t.app.inject({ method: method as 'GET', url });
        assert.equal(res.statusCode, 403, `${method} ${url} without a key`);
        if (method !== 'HEAD') {
          assert.equal(typeof (res.json() as { message: unknown }).message, 'string');
        }
      }
    });

    it('refuses api_key in the query of any other method, even next to a good header', async () => {
      const writes = apiRoutes(t).filter((r) => r.method !== 'GET' && r.method !== 'HEAD');
      for (const { method, url } of writes) {
        const res = await t.request(org.apiKey, {
          method: method as 'POST',
          url: `${url}${url.includes('?') ? '&' : '?'}api_key=${encodeURIComponent(org.apiKey)}`,
          headers: { 'content-type': 'application/json' },
          payload: '{}',
        });
        assert.equal(res.statusCode, 403, `${method} ${url}?api_key=`);
        assert.match((res.json() as { message: string }).message, /GET and HEAD only/);
      }
    });

    it('refuses api_key on POST /v2.1/organisation/balance and leaves the balance alone', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/v2.1/organisation/balance?amount=1000&api_key=${encodeURIComponent(org.apiKey)}`,
      });
      assert.equal(res.statusCode, 403);
      assert.match((res.json() as { message: string }).message, /X-API-Key header/);
      const after = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' });
      const balance = (after.json() as { organisations: { balance: number }[] }).organisations[0]
        ?.balance;
      assert.equal(balance, 5_000);
    });
  });
}
