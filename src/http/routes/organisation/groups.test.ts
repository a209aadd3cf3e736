import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES } from '../../../../test/harness.js';
import type { TestApp } from '../../../../test/harness.js';
import type { FileBackedApp } from '../../../../test/fixtures/orders.js';
import {
  addBundles,
  fixtureBundle,
  runCli,
  startFileBackedApp,
} from '../../../../test/fixtures/orders.js';

const EXTRA = 'Test Extra Group';

for (const kind of DATABASES) {
  describe(`GET /v2.1/organisation/groups [${kind}]`, () => {
    let f: FileBackedApp;
    let t: TestApp;

    before(async () => {
      f = await startFileBackedApp(kind, { catalogueSeed: false });
      t = f.t;
      await addBundles(t, [
        fixtureBundle('test_groups_a', 100),
        fixtureBundle('test_groups_b', 100),
        fixtureBundle('test_groups_c', 100, { groups: [EXTRA] }),
      ]);
    });
    after(() => f.close());

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

    it('esim org groups prints the same', async () => {
      const org = await t.createOrg({ groups: ['Standard eSIM Bundles', EXTRA] });
      const json = await runCli(['org', 'groups', org.id, '--json'], f.env);
      assert.equal(json.code, 0, json.err);
      assert.deepEqual(JSON.parse(json.out), {
        groups: [
          { name: 'Standard eSIM Bundles', bundleCount: 2 },
          { name: EXTRA, bundleCount: 1 },
        ],
      });
      const text = await runCli(['org', 'groups', org.id], f.env);
      assert.match(text.out, /^Standard eSIM Bundles {2}\(2 bundles\)$/m);
      const missing = await runCli(['org', 'groups', 'no-such-org'], f.env);
      assert.equal(missing.code, 1);
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
