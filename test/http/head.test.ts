import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registeredRoutes } from '../../src/http/openapi.js';
import { LATER_VERSIONS } from '../../src/http/versions/index.js';
import { startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// docs/interface.md: HEAD is answered for every GET route, with GET's status and headers and no
// body (Fastify's exposeHeadRoutes: a HEAD route beside each GET route). bench/start.md has why it
// is not answered by the GET route itself.

/** Headers that differ between any two answers. */
const VARYING = new Set(['date', 'x-request-id', 'set-cookie', 'connection', 'keep-alive']);

function steadyHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !VARYING.has(name)));
}

describe('HEAD', () => {
  let t: TestApp;
  let org: TestOrg;
  before(async () => {
    t = await startTestApp('sqlite');
    org = await t.createOrg({ name: 'Head Org' });
  });
  after(() => t.close());

  it('is registered for every GET route, of every version, the portal and the documentation', () => {
    for (const version of [undefined, ...LATER_VERSIONS]) {
      const routes = registeredRoutes(t.app, version);
      const heads = new Set(routes.filter((r) => r.method === 'HEAD').map((r) => r.url));
      const gets = routes.filter((r) => r.method === 'GET').map((r) => r.url);
      assert.ok(gets.length > 20, `${gets.length} GET routes`);
      assert.deepEqual(
        gets.filter((url) => !heads.has(url)),
        [],
        `v${version?.name ?? '2.1'}`,
      );
    }
  });

  it("answers with GET's status and headers, Content-Length included, and no body", async () => {
    const cases = [
      { url: '/v2.1/organisation', key: org.apiKey, status: 200 },
      { url: '/v2.4/catalogue?perPage=2', key: org.apiKey, status: 200 },
      { url: '/v2.1/esims/8944000000000000003', key: org.apiKey, status: 400 },
      { url: '/v2.1/organisation', key: undefined, status: 403 },
      { url: '/portal/orders', key: undefined, status: 303 },
      { url: '/docs', key: undefined, status: 200 },
    ];
    for (const { url, key, status } of cases) {
      const get = await t.request(key, { method: 'GET', url });
      const head = await t.request(key, { method: 'HEAD', url });
      assert.equal(get.statusCode, status, `GET ${url}: ${get.body}`);
      assert.equal(head.statusCode, status, `HEAD ${url}`);
      assert.equal(head.body, '', `HEAD ${url}`);
      assert.equal(head.headers['content-length'], String(get.rawPayload.length), `HEAD ${url}`);
      assert.deepEqual(steadyHeaders(head.headers), steadyHeaders(get.headers), `HEAD ${url}`);
    }
  });
});
