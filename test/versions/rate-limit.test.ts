import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// The rate limit of v2.4 and later: a budget per client address (the live 10 requests a second
// per IP), whichever key the address sends, told in the X-Ratelimit-* headers with the cost of
// the request, and 429 {"message": "Rate limit exceeded"} with Retry-After beyond it; v2.1 to
// v2.3 keep the budget per API key. A long window keeps every burst of a test inside one window
// (no wall clock involved); the live window is a second (RATE_LIMIT_WINDOW_SECONDS=1).

const LIMITS = {
  rateLimitEnabled: true,
  rateLimitPoints: 10,
  rateLimitWindowSeconds: 120,
  rateLimitCosts: { 'GET /catalogue': 5 },
};

for (const kind of DATABASES) {
  describe(`rate limit per address on v2.4 and later [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let other: TestOrg;

    before(async () => {
      t = await startTestApp(kind, LIMITS);
      org = await t.createOrg();
      other = await t.createOrg();
    });
    after(() => t.close());

    const get = (who: TestOrg, url: string, remoteAddress: string) =>
      t.request(who.apiKey, { method: 'GET', url, remoteAddress });

    it('tells the budget in headers and answers the 11th request 429 with Retry-After', async () => {
      const address = '198.51.100.41';
      const started = Date.now();
      const remaining: string[] = [];
      for (let i = 0; i < 10; i += 1) {
        const res = await get(org, '/v2.4/organisation', address);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['x-ratelimit-limit'], '10');
        assert.equal(res.headers['x-ratelimit-cost'], '1');
        const reset = String(res.headers['x-ratelimit-reset']);
        assert.match(reset, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/, 'ISO-8601 UTC');
        assert.ok(Date.parse(reset) > started, 'the window ends after it began');
        remaining.push(String(res.headers['x-ratelimit-remaining']));
      }
      assert.deepEqual(remaining, ['9', '8', '7', '6', '5', '4', '3', '2', '1', '0']);
      const refused = await get(org, '/v2.4/organisation', address);
      assert.equal(refused.statusCode, 429);
      assert.deepEqual(refused.json(), { message: 'Rate limit exceeded', code: 'rate_limited' });
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 120);
      assert.equal(refused.headers['x-ratelimit-remaining'], '0');
      // Another address is not held back.
      assert.equal((await get(org, '/v2.4/organisation', '198.51.100.42')).statusCode, 200);
    });

    it('is the address’s budget whichever key it sends, and v2.5 spends the same one', async () => {
      const address = '198.51.100.43';
      for (let i = 0; i < 5; i += 1) {
        assert.equal((await get(org, '/v2.4/organisation', address)).statusCode, 200);
      }
      for (let i = 0; i < 5; i += 1) {
        const res = await get(other, '/v2.5/organisation', address);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['x-ratelimit-remaining'], String(4 - i));
      }
      assert.equal((await get(other, '/v2.5/organisation', address)).statusCode, 429);
      assert.equal((await get(org, '/v2.4/organisation', address)).statusCode, 429);
    });

    it('charges a request its cost', async () => {
      const res = await get(org, '/v2.5/catalogue', '198.51.100.44');
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['x-ratelimit-cost'], '5');
      assert.equal(res.headers['x-ratelimit-remaining'], '5');
    });

    it('leaves v2.1 to v2.3 on the budget of the key, apart from the address’s', async () => {
      const address = '198.51.100.45';
      for (let i = 0; i < 10; i += 1) {
        assert.equal((await get(other, '/v2.4/organisation', address)).statusCode, 200);
      }
      assert.equal((await get(other, '/v2.4/organisation', address)).statusCode, 429);
      // The organisation's own budget is untouched by its address's.
      const older = await get(other, '/v2.3/organisation', address);
      assert.equal(older.statusCode, 200, older.body);
      assert.equal(older.headers['x-ratelimit-remaining'], '9');
      const v21 = await get(other, '/v2.1/organisation', address);
      assert.equal(v21.headers['x-ratelimit-remaining'], '8');
      // Over the key's budget, v2.1 keeps its own message.
      for (let i = 0; i < 8; i += 1) await get(other, '/v2.1/organisation', '198.51.100.46');
      const refused = await get(other, '/v2.1/organisation', '198.51.100.47');
      assert.equal(refused.statusCode, 429);
      assert.match(refused.json<{ message: string }>().message, /^rate limit exceeded: 10 points/);
    });
  });

  describe(`rate limits off (simulator mode, as every other suite runs) [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      t = await startTestApp(kind);
      org = await t.createOrg();
    });
    after(() => t.close());

    it('neither limits nor sends the headers on v2.4', async () => {
      for (let i = 0; i < 12; i += 1) {
        const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.4/organisation' });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['x-ratelimit-limit'], undefined);
      }
    });
  });
}
