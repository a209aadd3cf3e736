import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { addBundles, fixtureBundle } from '../../../../test/fixtures/orders.js';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';
import { bundleJson } from '../../../domain/catalogue/bundle-json.js';
import { BUILT_IN_GROUPS } from '../../../domain/catalogue/naming.js';
import type { CatalogueQuery } from '../../../domain/catalogue/query.js';
import { catalogueFilter } from '../../../domain/catalogue/query.js';
import { encodeMissingBundleJson } from '../../../domain/catalogue/seed.js';
import { catalogueItem } from '../../../domain/catalogue/catalogue-view.js';
import {
  bundleFromRow,
  findBundleByName,
  listCatalogue,
  retireBundles,
} from '../../../store/repositories/catalogue-repository.js';

// GET /catalogue answers with the JSON stored in each bundle row (bundles.item_json, one
// statement per page). Its bytes must be those of the Bundle view of the rows the filter picks,
// in the same order and with the same total, on every filter shape; rows written before the
// column existed (no JSON yet) are encoded from their columns until the service stores it.

const GROUP = 'Item JSON Group';
const GROUPS = [...BUILT_IN_GROUPS, GROUP];

/** Query strings of GET /catalogue and the same query as the route's parsed querystring. */
const QUERIES: readonly [string, CatalogueQuery][] = [
  ['?countries=FR&perPage=50', { countries: 'FR', perPage: 50 }],
  ['?countries=fr,DE,gb&perPage=7&page=3', { countries: 'fr,DE,gb', perPage: 7, page: '3' }],
  [
    '?orderBy=price&direction=desc&perPage=40',
    { orderBy: 'price', direction: 'desc', perPage: 40 },
  ],
  ['?orderBy=duration&page=2', { orderBy: 'duration', page: '2' }],
  [
    '?orderBy=dataAmount&direction=desc&region=europe&perPage=25&page=2',
    { orderBy: 'dataAmount', direction: 'desc', region: 'europe', perPage: 25, page: '2' },
  ],
  ['?description=france&orderBy=price', { description: 'france', orderBy: 'price' }],
  [`?group=${encodeURIComponent(GROUP)}&perPage=5000`, { group: GROUP, perPage: 5000 }],
  ['?perPage=5000', { perPage: 5000 }],
  ['?countries=FR&page=99', { countries: 'FR', page: '99' }],
];

for (const kind of DATABASES) {
  describe(`catalogue pages from stored bundle JSON [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    before(async () => {
      t = await startTestApp(kind, { catalogueCacheEntries: 0, catalogueStalenessMs: 0 });
      await addBundles(t, [
        fixtureBundle('esim_itemjson_1GB_7D_FR_V2', 199, {
          groups: [GROUP],
          description: 'Quotes " and \\ backslash, Réunion, emoji \u{1F600}, <html>',
          countries: ['FR', 'RE'],
          roaming: ['AX', 'CW'],
        }),
        fixtureBundle('esim_itemjson_unlimited_7D_FR_V2', 2500, {
          groups: [GROUP, 'Promo'],
          countries: ['FR'],
          unlimited: true,
          dataAmount: 0,
        }),
      ]);
      org = await t.createOrg({ groups: GROUPS });
    });
    after(() => t.close());

    /** The page the rows give, through the Bundle view: what the route answered before. */
    async function expected(query: CatalogueQuery): Promise<{ body: string; total: number }> {
      const filter = catalogueFilter(query, GROUPS);
      assert.ok(filter !== undefined);
      const { rows, total } = await listCatalogue(t.deps.store.db, t.deps.store.dialect, filter);
      return {
        body: JSON.stringify(rows.map((row) => catalogueItem(bundleFromRow(row)))),
        total,
      };
    }

    async function assertPages(): Promise<void> {
      for (const [url, query] of QUERIES) {
        const res = await t.request(org.apiKey, { method: 'GET', url: `/v2.1/catalogue${url}` });
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
        const want = await expected(query);
        assert.equal(res.body, want.body, url);
        assert.equal(res.headers['x-total-count'], String(want.total), url);
      }
    }

    it('answers every filter shape with the bytes and total of the Bundle view', async () => {
      await assertPages();
      const res = await t.request(org.apiKey, {
        method: 'GET',
        url: '/v2.1/catalogue?countries=RE&perPage=5000',
      });
      const body = res.json() as { name: string; description: string }[];
      assert.ok(body.some((b) => b.description.includes('Réunion, emoji \u{1F600}')));
    });

    it('stores each bundle its JSON when it is saved, and again when it changes', async () => {
      const name = 'esim_itemjson_1GB_7D_FR_V2';
      const before = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/catalogue?group=${encodeURIComponent(GROUP)}`,
      });
      assert.ok(before.body.includes('"price":199'));
      await addBundles(t, [
        fixtureBundle(name, 349, { groups: [GROUP], countries: ['FR'], roaming: [] }),
      ]);
      const res = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/catalogue?group=${encodeURIComponent(GROUP)}`,
      });
      const body = res.json() as { name: string; price: number; roamingEnabled: unknown[] }[];
      const saved = body.find((b) => b.name === name);
      assert.equal(saved?.price, 349);
      assert.deepEqual(saved?.roamingEnabled, []);
      await assertPages();
    });

    it('encodes rows without stored JSON from their columns, then stores it at start', async () => {
      const db = t.deps.store.db;
      await sql`update bundles set item_json = null where name in (
        select bundle_name from bundle_countries where iso = 'FR')`.execute(db);
      await sql`update bundles set item_json = null where name like 'esim_itemjson_%'`.execute(db);
      await assertPages();
      const missing = await sql<{ n: number }>`
        select count(*) as n from bundles where item_json is null`.execute(db);
      const encoded = await encodeMissingBundleJson(db);
      assert.ok(encoded > 2, `encoded ${encoded}`);
      assert.equal(encoded, Number(missing.rows[0]?.n));
      assert.equal(await encodeMissingBundleJson(db), 0);
      await assertPages();
    });

    it('encodes every bundle again at start when another encoder stored the JSON', async () => {
      const db = t.deps.store.db;
      await encodeMissingBundleJson(db);
      // As an older release would have left it: other JSON (a country renamed, say), recorded
      // under that release's fingerprint.
      const name = 'esim_itemjson_1GB_7D_FR_V2';
      const bundle = await findBundleByName(db, name);
      assert.ok(bundle !== undefined);
      const old = Buffer.from(
        JSON.stringify(catalogueItem(bundle)).replace('"France"', '"France (old name)"'),
      );
      await sql`update bundles set item_json = ${old} where name = ${name}`.execute(db);
      await sql`update catalogue_state set json_fingerprint = 'an older encoder'`.execute(db);
      const stale = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/catalogue?group=${encodeURIComponent(GROUP)}&perPage=5000`,
      });
      assert.match(stale.body, /France \(old name\)/);

      const total = await sql<{ n: number }>`select count(*) as n from bundles`.execute(db);
      assert.equal(await encodeMissingBundleJson(db), Number(total.rows[0]?.n));
      await assertPages();
      const fresh = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/catalogue?group=${encodeURIComponent(GROUP)}&perPage=5000`,
      });
      assert.doesNotMatch(fresh.body, /old name/);
      // Recorded: the next start encodes nothing.
      assert.equal(await encodeMissingBundleJson(db), 0);
    });

    it('rewrites the JSON of a retired bundle: no groups', async () => {
      const db = t.deps.store.db;
      const name = 'esim_itemjson_unlimited_7D_FR_V2';
      await db.transaction().execute((trx) => retireBundles(trx, [name], bundleJson));
      const stored = await db
        .selectFrom('bundles')
        .select(['item_json'])
        .where('name', '=', name)
        .executeTakeFirstOrThrow();
      const json = JSON.parse(String(stored.item_json)) as { name: string; groups: string[] };
      assert.equal(json.name, name);
      assert.deepEqual(json.groups, []);
      await assertPages();
    });
  });
}
