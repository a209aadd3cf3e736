import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';

const STANDARD = 'Standard eSIM Bundles';

for (const kind of DATABASES) {
  describe(`GET /v2.1/catalogue/bundle/{name} [${kind}]`, () => {
    let t: TestApp;
    let standard: TestOrg;
    let unlimited: TestOrg;

    before(async () => {
      t = await startTestApp(kind);
      standard = await t.createOrg({ name: 'Standard Org' });
      unlimited = await t.createOrg({ name: 'Unlimited Org', groups: ['Standard Unlimited Lite'] });
    });
    after(() => t.close());

    const get = (org: TestOrg, name: string) =>
      t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/catalogue/bundle/${encodeURIComponent(name)}`,
      });

    it('returns the fixed bundles other areas rely on, in the standard group', async () => {
      for (const iso of ['GB', 'FR', 'DE', 'ES', 'IT', 'US', 'JP']) {
        for (const [size, days] of [
          [1, 7],
          [3, 30],
          [5, 30],
        ] as const) {
          const name = `esim_${size}GB_${days}D_${iso}_V2`;
          const res = await get(standard, name);
          assert.equal(res.statusCode, 200, name);
          const b = res.json();
          assert.equal(b.name, name);
          assert.deepEqual(b.groups, [STANDARD]);
          assert.equal(b.dataAmount, size * 1000);
          assert.equal(b.duration, days);
          assert.equal(b.unlimited, false);
          assert.equal(b.countries.length, 1);
          assert.equal(b.countries[0].iso, iso);
          assert.ok(Number.isInteger(b.price) && b.price > 0);
        }
      }
      const gb = (await get(standard, 'esim_1GB_7D_GB_V2')).json();
      assert.equal(gb.description, 'eSIM, 1GB, 7 Days, United Kingdom, V2');
      assert.deepEqual(gb.countries, [{ name: 'United Kingdom', region: 'Europe', iso: 'GB' }]);
    });

    it('returns the Europe+ regional bundle: FR and DE as base countries, roaming in others', async () => {
      const res = await get(standard, 'esim_1GB_7D_REUP_V2');
      assert.equal(res.statusCode, 200);
      const b = res.json();
      assert.ok(b.groups.includes(STANDARD));
      const base = b.countries.map((c: { iso: string }) => c.iso);
      assert.ok(base.includes('FR') && base.includes('DE'));
      assert.ok(b.roamingEnabled.length > 0);
      for (const c of b.roamingEnabled) assert.ok(!base.includes(c.iso));
    });

    it('returns an unlimited GB bundle to an organisation of an unlimited group', async () => {
      const res = await get(unlimited, 'esim_UL_1D_GB_V2');
      assert.equal(res.statusCode, 200);
      const b = res.json();
      assert.equal(b.unlimited, true);
      assert.equal(b.dataAmount, -1);
      assert.equal(b.duration, 1);
      assert.deepEqual(b.groups, ['Standard Unlimited Lite']);
    });

    it('answers 404 alike for an unknown name, another group and another case', async () => {
      const unknown = await get(standard, 'esim_9GB_9D_GB_V2');
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.json().message, 'bundle esim_9GB_9D_GB_V2 not found');
      const hidden = await get(standard, 'esim_UL_1D_GB_V2');
      assert.equal(hidden.statusCode, 404);
      assert.equal(hidden.json().message, 'bundle esim_UL_1D_GB_V2 not found');
      const otherWay = await get(unlimited, 'esim_1GB_7D_GB_V2');
      assert.equal(otherWay.statusCode, 404);
      const lowerCase = await get(standard, 'esim_1gb_7d_gb_v2');
      assert.equal(lowerCase.statusCode, 404);
    });

    it('answers 403 without a valid key', async () => {
      const res = await t.request('esim_wrong', {
        method: 'GET',
        url: '/v2.1/catalogue/bundle/esim_1GB_7D_GB_V2',
      });
      assert.equal(res.statusCode, 403);
    });
  });
}
