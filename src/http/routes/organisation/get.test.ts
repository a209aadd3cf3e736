import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';
import { addUser } from '../../../domain/organisations/organisation-changes.js';

for (const kind of DATABASES) {
  describe(`GET /v2.1/organisation [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let other: TestOrg;

    before(async () => {
      t = await startTestApp(kind);
      org = await t.createOrg({
        name: 'Acme Travel',
        balance: 12_345,
        groups: ['Standard eSIM Bundles', 'Promo'],
      });
      other = await t.createOrg({ name: 'Other Org' });
      const d = t.deps;
      await addUser(
        { db: d.store.db, clock: d.clock, random: d.random, cipher: d.cipher },
        org.id,
        {
          email: 'ada@acme.example',
          firstName: 'Ada',
          lastName: 'Lovelace',
          role: 'Admin',
          timeZone: 'Europe/London',
        },
      );
    });
    after(() => t.close());

    it('returns every spec field, the users and the balance, with a key in the header', async () => {
      const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/json; charset=utf-8/);
      assert.ok(res.headers['x-request-id']);
      const body = res.json();
      assert.equal(body.organisations.length, 1);
      const o = body.organisations[0];
      for (const field of [
        'name',
        'apiKey',
        'taxLiable',
        'addr1',
        'addr2',
        'city',
        'country',
        'postcode',
        'callbackUrl',
        'notes',
        'groups',
        'currency',
        'balance',
        'testCredit',
        'testCreditExpiry',
        'businessType',
        'website',
        'productDescription',
        'users',
      ]) {
        assert.ok(field in o, `missing ${field}`);
      }
      assert.equal(o.name, 'Acme Travel');
      assert.equal(o.apiKey, org.apiKey);
      assert.equal(o.balance, 12_345);
      assert.equal(o.currency, 'USD');
      assert.deepEqual(o.groups, ['Standard eSIM Bundles', 'Promo']);
      assert.deepEqual(o.users, [
        {
          firstName: 'Ada',
          lastName: 'Lovelace',
          role: 'Admin',
          emailAddress: 'ada@acme.example',
          phoneNumber: '',
          timeZone: 'Europe/London',
        },
      ]);
    });

    it('accepts the key as api_key on GET and header names in any case', async () => {
      const byQuery = await t.app.inject({
        method: 'GET',
        url: `/v2.1/organisation?api_key=${encodeURIComponent(org.apiKey)}`,
      });
      assert.equal(byQuery.statusCode, 200);
      assert.equal(byQuery.json().organisations[0].name, 'Acme Travel');
      const upper = await t.app.inject({
        method: 'GET',
        url: '/v2.1/organisation',
        headers: { 'X-API-KEY': other.apiKey },
      });
      assert.equal(upper.statusCode, 200);
      assert.equal(upper.json().organisations[0].name, 'Other Org');
    });

    it('answers 403 with a message for a missing or wrong key', async () => {
      const missing = await t.app.inject({ method: 'GET', url: '/v2.1/organisation' });
      assert.equal(missing.statusCode, 403);
      assert.match(missing.json().message, /missing API key/);
      const wrong = await t.request('esim_not-a-real-key', {
        method: 'GET',
        url: '/v2.1/organisation',
      });
      assert.equal(wrong.statusCode, 403);
      assert.equal(wrong.json().message, 'invalid API key');
    });

    it('answers unknown routes with 404 {message} and sets a request id', async () => {
      const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/no-such-thing' });
      assert.equal(res.statusCode, 404);
      assert.equal(typeof res.json().message, 'string');
      const echoed = await t.request(org.apiKey, {
        method: 'GET',
        url: '/v2.1/organisation',
        headers: { 'x-request-id': 'abc-123' },
      });
      assert.equal(echoed.headers['x-request-id'], 'abc-123');
    });

    it('serves health and readiness without a key', async () => {
      assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
      const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 200);
      assert.deepEqual(ready.json(), { status: 'ready' });
    });
  });
}
