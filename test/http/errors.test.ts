import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FR_1MB, buy, seedTestBundles } from '../esim-fixtures.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// The error model: every error is {"message"} (plus an optional `code`), never a stack, and every
// response carries a request id.

function assertErrorBody(body: unknown): { message: string; code?: string } {
  assert.ok(typeof body === 'object' && body !== null, 'error body is an object');
  const error = body as Record<string, unknown>;
  assert.equal(typeof error['message'], 'string');
  assert.ok((error['message'] as string).length > 0);
  for (const key of Object.keys(error)) assert.ok(['message', 'code'].includes(key), key);
  return error as { message: string; code?: string };
}

for (const kind of DATABASES) {
  describe(`error model [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      t = await startTestApp(kind, { bodyLimitBytes: 2048 });
      org = await t.createOrg({ balance: 10_000 });
    });
    after(() => t.close());

    it('answers an unknown route with 404 {message}, with or without a key', async () => {
      for (const [method, url, key] of [
        ['GET', '/v2.1/no-such-thing', org.apiKey],
        ['GET', '/v2.1/no-such-thing', undefined],
        ['DELETE', '/v2.1/organisation', org.apiKey],
        ['GET', '/nowhere?api_key=x', undefined],
      ] as const) {
        const res = await t.request(key, { method, url });
        assert.equal(res.statusCode, 404, `${method} ${url}`);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        const body = assertErrorBody(res.json());
        assert.ok(!body.message.includes('api_key=x'), 'the query string is not echoed');
        assert.ok(res.headers['x-request-id']);
      }
    });

    it('answers an unknown route with 404 whatever the type or size of its body', async () => {
      for (const [type, payload] of [
        ['application/x-www-form-urlencoded', 'a=1'],
        ['text/plain', 'hello'],
        ['application/json', '{"broken": '],
        ['application/json', JSON.stringify({ big: 'x'.repeat(4096) })],
        ['multipart/form-data; boundary=x', '--x--'],
      ] as const) {
        for (const url of ['/v2.1/no-such-thing', '/nowhere']) {
          const res = await t.request(org.apiKey, {
            method: 'POST',
            url,
            headers: { 'content-type': type },
            payload,
          });
          assert.equal(res.statusCode, 404, `${url} ${type}`);
          assert.equal(assertErrorBody(res.json()).code, 'not_found');
        }
      }
    });

    it('answers malformed JSON with 400 {message}', async () => {
      const res = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        headers: { 'content-type': 'application/json' },
        payload: '{"type": "transaction", "order": [',
      });
      assert.equal(res.statusCode, 400);
      assert.match(assertErrorBody(res.json()).message, /not valid JSON/);
      const empty = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        headers: { 'content-type': 'application/json' },
        payload: '',
      });
      assert.equal(empty.statusCode, 400);
      assert.match(assertErrorBody(empty.json()).message, /empty/);
    });

    it('answers a body over BODY_LIMIT_BYTES with 413 {message}', async () => {
      const res = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ type: 'validate', padding: 'x'.repeat(4096) }),
      });
      assert.equal(res.statusCode, 413);
      assert.match(assertErrorBody(res.json()).message, /2048 byte limit/);
      assert.ok(res.headers['x-request-id']);
    });

    it('answers a body that is not JSON with 415 {message}', async () => {
      const res = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        headers: { 'content-type': 'text/plain' },
        payload: 'type=transaction',
      });
      assert.equal(res.statusCode, 415);
      const body = assertErrorBody(res.json());
      assert.equal(body.message, 'request body must be application/json, not text/plain');
    });

    it('answers a query parameter given twice that takes one value with 400 naming it', async () => {
      for (const [url, name] of [
        ['/v2.1/esims?page=1&page=2', 'page'],
        ['/v2.1/catalogue?perPage=5&perPage=5', 'perPage'],
        ['/v2.4/esims?direction=asc&direction=desc', 'direction'],
      ] as const) {
        const res = await t.request(org.apiKey, { method: 'GET', url });
        assert.equal(res.statusCode, 400, url);
        assert.equal(
          assertErrorBody(res.json()).message,
          `query parameter ${name} may be given once (it was given 2 times)`,
        );
      }
      // A parameter meant to repeat still does: createdAt's conditions all hold.
      const range = await t.request(org.apiKey, {
        method: 'GET',
        url: '/v2.4/orders?createdAt=gte:2024-01-01&createdAt=lte:2024-02-01',
      });
      assert.equal(range.statusCode, 200, range.body);
    });

    it('says what to send: a missing body with its required fields, a pattern in words, a prototype key by name', async () => {
      const cases: [string, Awaited<ReturnType<TestApp['request']>>][] = [
        [
          'request body is missing; send a JSON object with order',
          await t.request(org.apiKey, { method: 'POST', url: '/v2.1/orders' }),
        ],
        [
          'request body is missing; send a JSON object with seconds',
          await t.app.inject({ method: 'POST', url: '/_sim/clock/advance' }),
        ],
        [
          'query parameter page must be a whole number from 1 to 999999999',
          await t.request(org.apiKey, { method: 'GET', url: '/v2.1/orders?page=0' }),
        ],
        [
          'header idempotency-key must be printable ASCII characters, without spaces',
          await t.request(org.apiKey, {
            method: 'POST',
            url: '/v2.1/orders',
            headers: { 'idempotency-key': 'a b' },
            payload: { type: 'validate', order: [{ type: 'bundle', item: 'x', quantity: 1 }] },
          }),
        ],
        [
          'request body must not have a key named __proto__, nor constructor with prototype in it',
          await t.request(org.apiKey, {
            method: 'POST',
            url: '/v2.1/orders',
            headers: { 'content-type': 'application/json' },
            payload: '{"type":"validate","__proto__":{"polluted":1},"order":[]}',
          }),
        ],
      ];
      for (const [message, res] of cases) {
        assert.equal(res.statusCode, 400, res.body);
        assert.deepEqual(res.json(), { message, code: 'validation_failed' });
      }
      assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    });

    it('takes an empty JSON body as {} where every body field is optional (curl -X POST -H json)', async () => {
      await seedTestBundles(t);
      const [iccid] = (await buy(t, org, FR_1MB.name)).iccids;
      const res = await t.app.inject({
        method: 'POST',
        url: `/_sim/esims/${iccid}/install`,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.statusCode, 200, res.body);
      const esim = await t.request(org.apiKey, { method: 'GET', url: `/v2.1/esims/${iccid}` });
      assert.equal(esim.json<{ profileStatus: string }>().profileStatus, 'Installed');
    });

    it('answers a malformed URL with 400 {message} and a request id', async () => {
      const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/esims/%E0%A4%A' });
      assert.equal(res.statusCode, 400);
      assertErrorBody(res.json());
      assert.ok(res.headers['x-request-id']);
    });

    it('answers an unexpected failure with 500 {message} and no internals', async () => {
      const victim = await t.createOrg();
      await t.deps.store.db
        .updateTable('organisations')
        .set({ groups: 'not json at all' })
        .where('id', '=', victim.id)
        .execute();
      const res = await t.request(victim.apiKey, { method: 'GET', url: '/v2.1/organisation' });
      assert.equal(res.statusCode, 500);
      const body = assertErrorBody(res.json());
      assert.equal(body.message, 'internal server error');
      assert.doesNotMatch(res.body, /SyntaxError|JSON\.parse|at .*\.ts|\/work\//);
      assert.ok(res.headers['x-request-id']);
    });
  });
}

describe('request ids', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('sqlite');
  });
  after(() => t.close());

  it('echoes a well-formed X-Request-Id and replaces anything else', async () => {
    const echoed = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'client-42.a:b_c' },
    });
    assert.equal(echoed.headers['x-request-id'], 'client-42.a:b_c');
    for (const bad of ['has space', 'x'.repeat(200), 'semi;colon', '']) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/healthz',
        headers: { 'x-request-id': bad },
      });
      const id = String(res.headers['x-request-id']);
      assert.notEqual(id, bad);
      assert.match(id, /^[0-9a-f-]{36}$/);
    }
  });

  it('gives every response its own id', async () => {
    const ids = new Set<string>();
    for (const url of ['/healthz', '/readyz', '/v2.1/organisation', '/nowhere']) {
      const res = await t.app.inject({ method: 'GET', url });
      ids.add(String(res.headers['x-request-id']));
    }
    assert.equal(ids.size, 4);
  });
});
