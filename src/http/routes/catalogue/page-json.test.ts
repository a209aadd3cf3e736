import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addBundles, fixtureBundle } from '../../../../test/fixtures/orders.js';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';
import { BUILT_IN_GROUPS } from '../../../domain/catalogue/naming.js';
import { catalogueItem } from '../../../domain/catalogue/catalogue-view.js';
import { bundleFromRow, listCatalogue } from '../../../store/repositories/catalogue-repository.js';
import { cataloguePageJson } from './page-json.js';

// GET /catalogue writes its pages straight from the rows (page-json.ts). These must be the very
// bytes the Bundle view gives (catalogueItem, in the response schema's field order), for every
// bundle of the built-in catalogue and for text that needs escaping.

const GROUP = 'Fixture Group';

for (const kind of DATABASES) {
  describe(`catalogue pages serialised from rows [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    before(async () => {
      t = await startTestApp(kind, { catalogueCacheEntries: 0, catalogueStalenessMs: 0 });
      await addBundles(t, [
        fixtureBundle('esim_escape_1GB_7D_GB_V2', 199, {
          groups: [GROUP],
          description: 'Quotes " and \\ backslash, tab\t, line\u2028sep, emoji \u{1F600}, <html>',
          countries: ['GB', 'FR'],
          roaming: ['DE', 'IE', 'ES'],
        }),
        fixtureBundle('esim_unlimited_7D_GB_V2', 2500, {
          groups: [GROUP],
          unlimited: true,
          dataAmount: 0,
          speed: ['4G', '5G'],
          autostart: false,
        }),
      ]);
      org = await t.createOrg({ groups: [...BUILT_IN_GROUPS, GROUP] });
    });
    after(() => t.close());

    it('gives the bytes of the Bundle view for every bundle', async () => {
      const { rows, total } = await listCatalogue(t.deps.store.db, t.deps.store.dialect, {
        groups: [...BUILT_IN_GROUPS, GROUP],
        orderBy: 'name',
        direction: 'asc',
        limit: 5000,
        offset: 0,
      });
      assert.equal(rows.length, total);
      assert.ok(rows.length > 100, `only ${rows.length} bundles`);
      const expected = JSON.stringify(rows.map((row) => catalogueItem(bundleFromRow(row))));
      assert.equal(cataloguePageJson(rows), expected);
    });

    it('answers GET /catalogue with them', async () => {
      const res = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/catalogue?group=${encodeURIComponent(GROUP)}`,
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json() as Record<string, unknown>[];
      assert.deepEqual(
        body.map((b) => [b['name'], b['description'], b['dataAmount'], b['unlimited']]),
        [
          [
            'esim_escape_1GB_7D_GB_V2',
            'Quotes " and \\ backslash, tab\t, line\u2028sep, emoji \u{1F600}, <html>',
            1000,
            false,
          ],
          ['esim_unlimited_7D_GB_V2', 'Fixture esim_unlimited_7D_GB_V2', -1, true],
        ],
      );
      assert.deepEqual(body[0]?.['roamingEnabled'], [
        { name: 'Germany', region: 'Europe', iso: 'DE' },
        { name: 'Ireland', region: 'Europe', iso: 'IE' },
        { name: 'Spain', region: 'Europe', iso: 'ES' },
      ]);
    });
  });
}
