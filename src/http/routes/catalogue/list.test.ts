import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';
import type { Bundle } from '../../../domain/catalogue/bundle.js';
import { builtInCatalogue } from '../../../domain/catalogue/built-in.js';
import { BUILT_IN_GROUPS } from '../../../domain/catalogue/naming.js';
import { countryByIso } from '../../../domain/catalogue/countries.js';

interface Item {
  name: string;
  description: string;
  groups: string[];
  countries: { name: string; region: string; iso: string }[];
  roamingEnabled: { name: string; region: string; iso: string }[];
  dataAmount: number;
  duration: number;
  speed: string[];
  autostart: boolean;
  unlimited: boolean;
  price: number;
}

const STANDARD = 'Standard eSIM Bundles';
const catalogue = builtInCatalogue();

/** What an organisation with these groups should see, in name order: the oracle. */
function visible(groups: readonly string[], keep: (b: Bundle) => boolean = () => true): Bundle[] {
  return catalogue
    .filter((b) => b.groups.some((g) => groups.includes(g)) && keep(b))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

const inRegion = (b: Bundle, region: string): boolean =>
  b.countries.some((iso) => countryByIso(iso)?.region === region);

function names(body: Item[]): string[] {
  return body.map((b) => b.name);
}

for (const kind of DATABASES) {
  describe(`GET /v2.1/catalogue [${kind}]`, () => {
    let t: TestApp;
    let standard: TestOrg;
    let everything: TestOrg;
    let promoOnly: TestOrg;

    before(async () => {
      t = await startTestApp(kind);
      standard = await t.createOrg({ name: 'Standard Org' });
      everything = await t.createOrg({ name: 'All Groups Org', groups: BUILT_IN_GROUPS });
      promoOnly = await t.createOrg({ name: 'Promo Org', groups: ['Promo'] });
    });
    after(() => t.close());

    const get = (org: TestOrg, query: string) =>
      t.request(org.apiKey, { method: 'GET', url: `/v2.1/catalogue${query}` });

    it('lists the first 50 visible bundles by name, with paging headers and spec fields', async () => {
      const res = await get(standard, '');
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/json; charset=utf-8/);
      const expected = visible([STANDARD]);
      assert.equal(res.headers['x-total-count'], String(expected.length));
      const body = res.json() as Item[];
      assert.deepEqual(names(body), names(expected.slice(0, 50) as unknown as Item[]));
      const first = body[0];
      assert.ok(first);
      assert.deepEqual(Object.keys(first).sort(), [
        'autostart',
        'billingType',
        'countries',
        'dataAmount',
        'description',
        'duration',
        'groups',
        'name',
        'price',
        'roamingEnabled',
        'speed',
        'unlimited',
      ]);
      assert.equal((first as unknown as Record<string, unknown>)['billingType'], 'FixedCost');
      const link = String(res.headers['link']);
      assert.match(link, /<[^>]*\/v2\.1\/catalogue\?page=2>; rel="next"/);
      assert.doesNotMatch(link, /rel="prev"/);
    });

    it('returns Country objects and integer units', async () => {
      const res = await get(standard, '?countries=GB&perPage=500');
      const gb = (res.json() as Item[]).find((b) => b.name === 'esim_1GB_7D_GB_V2');
      assert.ok(gb);
      assert.deepEqual(gb.countries, [{ name: 'United Kingdom', region: 'Europe', iso: 'GB' }]);
      assert.equal(gb.dataAmount, 1000);
      assert.equal(gb.duration, 7);
      assert.equal(gb.unlimited, false);
      assert.ok(Number.isInteger(gb.price) && gb.price > 0);
      for (const c of gb.roamingEnabled)
        assert.deepEqual(Object.keys(c), ['name', 'region', 'iso']);
    });

    it('pages to the end: the last page is partial and a page past the end is []', async () => {
      const total = visible([STANDARD]).length;
      const lastPage = Math.ceil(total / 200);
      const last = await get(standard, `?perPage=200&page=${lastPage}`);
      assert.equal(last.statusCode, 200);
      assert.equal((last.json() as Item[]).length, total - (lastPage - 1) * 200);
      assert.doesNotMatch(String(last.headers['link']), /rel="next"/);
      const past = await get(standard, `?perPage=200&page=${lastPage + 5}`);
      assert.equal(past.statusCode, 200);
      assert.deepEqual(past.json(), []);
      assert.equal(past.headers['x-total-count'], String(total));
      assert.match(String(past.headers['link']), new RegExp(`page=${lastPage}>; rel="prev"`));
      const all: string[] = [];
      for (let page = 1; page <= lastPage; page += 1) {
        all.push(...names((await get(standard, `?perPage=200&page=${page}`)).json() as Item[]));
      }
      assert.deepEqual(all, names(visible([STANDARD]) as unknown as Item[]));
    });

    it('accepts perPage up to 5000 and answers 400 above it or for a bad page', async () => {
      const thousand = await get(everything, '?perPage=1000&page=1');
      assert.equal(thousand.statusCode, 200);
      assert.equal(
        (thousand.json() as Item[]).length,
        Math.min(1000, visible(BUILT_IN_GROUPS).length),
      );
      const max = await get(everything, '?perPage=5000');
      assert.equal(max.statusCode, 200);
      assert.equal((max.json() as Item[]).length, Math.min(5000, visible(BUILT_IN_GROUPS).length));
      assert.equal(max.headers['x-total-count'], String(visible(BUILT_IN_GROUPS).length));
      for (const [query, field] of [
        ['?perPage=5001', 'perPage'],
        ['?perPage=0', 'perPage'],
        ['?perPage=ten', 'perPage'],
        ['?page=0', 'page'],
        ['?page=-1', 'page'],
        ['?page=two', 'page'],
        ['?orderBy=size', 'orderBy'],
        ['?direction=up', 'direction'],
      ] as const) {
        const res = await get(standard, query);
        assert.equal(res.statusCode, 400, query);
        assert.match(res.json().message, new RegExp(field), query);
      }
    });

    it('keeps the other query parameters in Link but never the api_key', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/v2.1/catalogue?countries=FR&api_key=${encodeURIComponent(standard.apiKey)}&perPage=5&page=2`,
      });
      assert.equal(res.statusCode, 200);
      const link = String(res.headers['link']);
      assert.match(link, /\?countries=FR&perPage=5&page=3>; rel="next"/);
      assert.match(link, /\?countries=FR&perPage=5&page=1>; rel="prev"/);
      assert.doesNotMatch(link, /api_key/);
      assert.ok(!link.includes(standard.apiKey));
    });

    it('filters by base country (one or several, any case) and rejects unknown codes', async () => {
      const fr = await get(everything, '?countries=FR&perPage=500');
      const expected = visible(BUILT_IN_GROUPS, (b) => b.countries.includes('FR'));
      assert.deepEqual(names(fr.json() as Item[]), names(expected as unknown as Item[]));
      assert.equal(fr.headers['x-total-count'], String(expected.length));
      // Roaming countries are not base countries: Monaco is only roamed in by Europe+ bundles.
      const mc = (await get(everything, '?countries=MC&perPage=500')).json() as Item[];
      assert.ok(mc.every((b) => b.countries.some((c) => c.iso === 'MC')));
      assert.ok(!mc.some((b) => b.name.includes('REUP')));

      const several = await get(standard, '?countries=jp, de&perPage=500');
      assert.deepEqual(
        names(several.json() as Item[]),
        names(
          visible(
            [STANDARD],
            (b) => b.countries.includes('JP') || b.countries.includes('DE'),
          ) as unknown as Item[],
        ),
      );
      for (const bad of ['XX', 'FRA', 'FR,ZZ']) {
        const res = await get(standard, `?countries=${bad}`);
        assert.equal(res.statusCode, 400, bad);
        assert.match(res.json().message, /countries/);
        assert.match(res.json().message, bad === 'FR,ZZ' ? /"ZZ"/ : new RegExp(`"${bad}"`));
      }
    });

    it('filters by region, case-insensitively, and rejects an unknown region', async () => {
      const res = await get(standard, '?region=oCeAnIa&perPage=500');
      assert.deepEqual(
        names(res.json() as Item[]),
        names(visible([STANDARD], (b) => inRegion(b, 'Oceania')) as unknown as Item[]),
      );
      const bad = await get(standard, '?region=Atlantis');
      assert.equal(bad.statusCode, 400);
      assert.match(bad.json().message, /region/);
    });

    it('searches descriptions: substring, * wildcards, any case, special characters literal', async () => {
      const search = async (pattern: string): Promise<string[]> => {
        const res = await get(
          everything,
          `?perPage=500&description=${encodeURIComponent(pattern)}`,
        );
        assert.equal(res.statusCode, 200, pattern);
        return names(res.json() as Item[]);
      };
      const where = (keep: (d: string) => boolean): string[] =>
        names(visible(BUILT_IN_GROUPS, (b) => keep(b.description)) as unknown as Item[]);
      assert.deepEqual(
        await search('jApAn'),
        where((d) => d.toLowerCase().includes('japan')),
      );
      assert.deepEqual(
        await search('eSIM, 1GB*'),
        where((d) => d.startsWith('eSIM, 1GB')),
      );
      assert.deepEqual(
        await search('*30 Days, France, V2'),
        where((d) => d.endsWith('30 Days, France, V2')),
      );
      assert.deepEqual(
        await search('esim,*unlimited*japan*'),
        where((d) => /^esim,.*unlimited.*japan.*$/i.test(d)),
      );
      // Non-ASCII folds too (Réunion), on both databases.
      const reunion = await search('RÉUNION');
      assert.ok(reunion.length > 0);
      assert.deepEqual(
        reunion,
        where((d) => d.includes('Réunion')),
      );
      // % and _ are not wildcards.
      assert.deepEqual(await search('1_B'), []);
      assert.deepEqual(await search('100%'), []);
    });

    it('filters by exact group, within the organisation groups only', async () => {
      const promo = await get(everything, '?group=Promo&perPage=500');
      assert.deepEqual(
        names(promo.json() as Item[]),
        names(visible(['Promo']) as unknown as Item[]),
      );
      const wrongCase = await get(everything, '?group=promo');
      assert.equal(wrongCase.statusCode, 400);
      assert.match(wrongCase.json().message, /group: "promo" is not a group of this organisation/);
      const notMine = await get(standard, '?group=Promo');
      assert.equal(notMine.statusCode, 400);
      assert.equal(notMine.json().code, 'unknown_group');
      assert.match(notMine.json().message, /"Promo"/);
      assert.match(notMine.json().message, /its groups: Standard eSIM Bundles$/);
    });

    it('shows an organisation only the bundles of its groups', async () => {
      const promo = (await get(promoOnly, '?perPage=500')).json() as Item[];
      assert.deepEqual(names(promo), names(visible(['Promo']) as unknown as Item[]));
      assert.ok(promo.every((b) => b.groups.includes('Promo')));
      const std = (await get(standard, '?countries=GB&perPage=500')).json() as Item[];
      assert.ok(std.every((b) => b.groups.includes(STANDARD)));
      assert.ok(!std.some((b) => b.unlimited));
    });

    it('orders by each field in both directions, ties broken by name', async () => {
      const fields = { price: 'price', duration: 'duration', dataAmount: 'dataAmount' } as const;
      for (const field of Object.values(fields)) {
        for (const direction of ['asc', 'desc'] as const) {
          const res = await get(
            standard,
            `?countries=US&orderBy=${field}&direction=${direction}&perPage=500`,
          );
          const body = res.json() as Item[];
          const expected = [...visible([STANDARD], (b) => b.countries.includes('US'))].sort(
            (a, b) => {
              const av = a[field];
              const bv = b[field];
              if (av !== bv) return direction === 'asc' ? av - bv : bv - av;
              return a.name < b.name ? -1 : 1;
            },
          );
          assert.deepEqual(
            names(body),
            names(expected as unknown as Item[]),
            `${field} ${direction}`,
          );
        }
      }
      const desc = (await get(standard, '?direction=desc&perPage=3')).json() as Item[];
      assert.deepEqual(
        names(desc),
        names(visible([STANDARD]).reverse().slice(0, 3) as unknown as Item[]),
      );
    });

    it('combines every filter with AND', async () => {
      const query =
        '?countries=FR,DE&region=Europe&description=*30%20Days*&group=Standard%20eSIM%20Bundles' +
        '&orderBy=price&direction=desc&perPage=4&page=2';
      const res = await get(everything, query);
      assert.equal(res.statusCode, 200);
      const expected = visible(
        [STANDARD],
        (b) =>
          (b.countries.includes('FR') || b.countries.includes('DE')) &&
          inRegion(b, 'Europe') &&
          b.description.includes('30 Days'),
      ).sort((a, b) => (a.price !== b.price ? b.price - a.price : a.name < b.name ? -1 : 1));
      assert.equal(res.headers['x-total-count'], String(expected.length));
      assert.deepEqual(
        names(res.json() as Item[]),
        names(expected.slice(4, 8) as unknown as Item[]),
      );
    });

    it('holds the built-in catalogue: over 1,000 bundles, 150+ base countries, several groups', async () => {
      const all: Item[] = [];
      for (let page = 1; ; page += 1) {
        const body = (await get(everything, `?perPage=500&page=${page}`)).json() as Item[];
        if (body.length === 0) break;
        all.push(...body);
      }
      assert.ok(all.length >= 1000, `${all.length} bundles`);
      const base = new Set(all.flatMap((b) => b.countries.map((c) => c.iso)));
      assert.ok(base.size >= 150, `${base.size} base countries`);
      assert.ok(new Set(all.flatMap((b) => b.groups)).size >= 5);
      assert.ok(all.some((b) => b.unlimited && b.dataAmount === -1));
      assert.ok(all.some((b) => b.countries.length > 1 && b.roamingEnabled.length > 0));
      for (const b of all) {
        assert.match(b.name, /^esim_(\d+GB|UL|ULE|ULP)_\d+D_[A-Z]{2,5}_V2$/);
        assert.ok(b.speed.length > 0 && b.speed.every((s) => ['2G', '3G', '4G', '5G'].includes(s)));
      }
    });

    it('answers 403 without a key', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/v2.1/catalogue' });
      assert.equal(res.statusCode, 403);
    });
  });
}
