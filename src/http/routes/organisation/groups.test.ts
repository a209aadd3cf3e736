import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp } from '../../../../test/harness.js';
import { addBundles, fixtureBundle } from '../../../../test/fixtures/orders.js';

const EXTRA = 'Test Extra Group';

for (const kind of DATABASES) {
  describe(`GET /v2.1/organisation/groups [${kind}]`, () => {
    let t: TestApp;

    before(async () => {
      t = await startTestApp(kind, { catalogueSeed: false });
      await addBundles(t, [
        fixtureBundle('test_groups_a', 100),
        fixtureBundle('test_groups_b', 100),
        fixtureBundle('test_groups_c', 100, { groups: [EXTRA] }),
      ]);
    });
    after(() => t.close());

    it('lists the groups of the caller in its order, with how many bundles each holds', async () => {
      const org = await t.createOrg({ groups: [EXTRA, 'Standard eSIM Bundles', 'Empty Group'] });
      const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation/groups' });
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.deepEqual(res.json(), {
        groups: [
          { name: EXTRA, desc: '1 bundle', bundleCount: 1 },
          { name: 'Standard eSIM Bundles', desc: '2 bundles', bundleCount: 2 },
          { name: 'Empty Group', desc: '0 bundles', bundleCount: 0 },
        ],
      });
    });

    it('shows each organisation only its own groups', async () => {
      const one = await t.createOrg({ groups: [EXTRA] });
      const two = await t.createOrg({ groups: ['Standard eSIM Bundles'] });
      const names = async (apiKey: string) =>
        (await t.request(apiKey, { method: 'GET', url: '/v2.1/organisation/groups' }))
          .json()
          .groups.map((g: { name: string }) => g.name);
      assert.deepEqual(await names(one.apiKey), [EXTRA]);
      assert.deepEqual(await names(two.apiKey), ['Standard eSIM Bundles']);
    });

    it('needs a valid API key', async () => {
      const missing = await t.request(undefined, {
        method: 'GET',
        url: '/v2.1/organisation/groups',
      });
      assert.equal(missing.statusCode, 403);
      const wrong = await t.request('esim_not_a_key', {
        method: 'GET',
        url: '/v2.1/organisation/groups',
      });
      assert.equal(wrong.statusCode, 403);
      assert.equal(typeof wrong.json().message, 'string');
    });
  });
}
