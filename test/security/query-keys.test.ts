import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { redactUrl } from '../../src/http/auth.js';
import { saveCard } from '../../src/domain/money/save-card.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// A key in the query of anything but GET/HEAD is refused with 403 even beside a valid header,
// whatever the parameter's spelling: case, brackets, percent-encoding (once or twice), dashes.
// Before this rule only the exact `api_key` was refused, and `API_KEY=` on a top-up credited the
// balance.

const SPELLINGS = [
  'api_key',
  'API_KEY',
  'Api_Key',
  'api_key[]',
  'api_key%5B%5D',
  'api_key[0]',
  'api%5Fkey',
  'api%255Fkey',
  '%61pi_key',
  'api-key',
  'apiKey',
  'APIKEY',
  'x-api-key',
  'X-Api-Key',
  'api+key',
  'ａｐｉ_ｋｅｙ',
];

for (const kind of DATABASES) {
  describe(`security: key-like query parameters on non-GET requests [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      t = await startTestApp(kind, { topUpMin: 500, topUpMax: 100_000 });
      org = await t.createOrg({ name: 'Query Keys', balance: 1000 });
      await saveCard(t.deps, org.id, { number: '4242424242424242', expMonth: 12, expYear: 2099 });
    });
    after(() => t.close());

    const balance = async (): Promise<number> => {
      const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().organisations[0].balance;
    };

    it('refuses every spelling on POST /v2.1/organisation/balance and charges nothing', async () => {
      for (const name of SPELLINGS) {
        const url = `/v2.1/organisation/balance?amount=500&${encodeURI(name)}=${encodeURIComponent(org.apiKey)}`;
        const res = await t.request(org.apiKey, { method: 'POST', url });
        assert.equal(res.statusCode, 403, `${name}: ${res.body}`);
        assert.equal(res.json().code, 'forbidden');
        assert.match(res.json().message, /X-API-Key header/);
        assert.ok(!res.body.includes(org.apiKey), 'the key is not echoed');
      }
      // Also as a bare name, with no value, and as the first parameter.
      for (const url of [
        '/v2.1/organisation/balance?amount=500&API_KEY',
        `/v2.1/organisation/balance?Api_Key=${encodeURIComponent(org.apiKey)}&amount=500`,
      ]) {
        const res = await t.request(org.apiKey, { method: 'POST', url });
        assert.equal(res.statusCode, 403, `${url}: ${res.body}`);
      }
      assert.equal(await balance(), 1000);
    });

    it('refuses them on orders, apply and revoke too', async () => {
      const cases: { method: 'POST' | 'DELETE'; url: string; payload?: object }[] = [
        {
          method: 'POST',
          url: '/v2.1/orders',
          payload: { type: 'validate', order: [{ type: 'bundle', item: 'x', quantity: 1 }] },
        },
        { method: 'POST', url: '/v2.1/esims/apply', payload: { name: 'x' } },
        {
          method: 'DELETE',
          url: '/v2.1/esims/8944000000000000003/bundles/x/assignments/1',
        },
      ];
      for (const c of cases) {
        for (const name of ['API_KEY', 'api_key%5B%5D', 'Api-Key']) {
          const res = await t.request(org.apiKey, {
            method: c.method,
            url: `${c.url}?${name}=${encodeURIComponent(org.apiKey)}`,
            ...(c.payload === undefined ? {} : { payload: c.payload }),
          });
          assert.equal(res.statusCode, 403, `${c.method} ${c.url} ${name}: ${res.body}`);
        }
      }
    });

    it('still accepts a POST whose query has no key-like parameter, and api_key on GET', async () => {
      const res = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/organisation/balance?amount=500&apply=1&key=1',
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(await balance(), 1500);
      const get = await t.app.inject({
        method: 'GET',
        url: `/v2.1/organisation?api_key=${encodeURIComponent(org.apiKey)}`,
      });
      assert.equal(get.statusCode, 200, get.body);
    });

    it('redacts the value of every spelling from the access log', () => {
      for (const name of SPELLINGS) {
        const url = `/v2.1/organisation?${encodeURI(name)}=${encodeURIComponent(org.apiKey)}&page=2`;
        const redacted = redactUrl(url);
        assert.ok(!redacted.includes(encodeURIComponent(org.apiKey)), `${name}: ${redacted}`);
        assert.ok(redacted.endsWith('&page=2'), redacted);
      }
    });
  });
}
