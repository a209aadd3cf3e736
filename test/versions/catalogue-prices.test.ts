import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { updateOrganisationSettings } from '../../src/domain/organisations/organisation-changes.js';
import { addBundles, fixtureBundle } from '../fixtures/orders.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// GET /v2.5/catalogue/prices: per country and profile (group), the price of 1000 MB from the
// group's cheapest bundle there; only for organisations on Consumption billing; a hash that
// follows the prices.

const A = 'Prices Group A';
const B = 'Prices Group B';
const C = 'Prices Group C';

interface Price {
  id: string;
  price: string;
  currency: string;
  profile: string;
  country: { iso: string; name: string };
}
interface Prices {
  hash: string;
  prices: { country: { iso: string; name: string }; prices: Price[] }[];
}

for (const kind of DATABASES) {
  describe(`GET /catalogue/prices on v2.5 [${kind}]`, () => {
    let t: TestApp;
    let consumer: TestOrg;
    let other: TestOrg;
    let fixed: TestOrg;

    const billing = (id: string) =>
      updateOrganisationSettings(
        {
          db: t.deps.store.db,
          clock: t.deps.clock,
          random: t.deps.random,
          cipher: t.deps.cipher,
          apiKeys: t.deps.apiKeys,
        },
        id,
        { billingType: 'Consumption' },
      );

    before(async () => {
      t = await startTestApp(kind);
      await addBundles(t, [
        fixtureBundle('prices_gb_1gb', 500, { groups: [A], countries: ['GB'] }),
        fixtureBundle('prices_gb_3gb', 1200, { groups: [A], countries: ['GB'], dataAmount: 3000 }),
        fixtureBundle('prices_fr_2gb', 333, { groups: [A], countries: ['FR'], dataAmount: 2000 }),
        fixtureBundle('prices_gb_ul', 100, {
          groups: [B],
          countries: ['GB'],
          dataAmount: -1,
          unlimited: true,
        }),
        fixtureBundle('prices_de_1gb', 999, { groups: [B], countries: ['DE'] }),
        fixtureBundle('prices_gb_cheap', 1, { groups: [C], countries: ['GB'] }),
      ]);
      consumer = await t.createOrg({ groups: [A, B] });
      other = await t.createOrg({ groups: [C] });
      fixed = await t.createOrg({ groups: [A, B] });
      await billing(consumer.id);
      await billing(other.id);
    });
    after(() => t.close());

    const prices = (who: TestOrg | undefined, version = '2.5') =>
      t.request(who?.apiKey, { method: 'GET', url: `/v${version}/catalogue/prices` });

    it('answers each country’s price of 1000 MB per profile, from the cheapest bundle', async () => {
      const res = await prices(consumer);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json<Prices>();
      const flat = body.prices.map((c) => [
        c.country.iso,
        c.country.name,
        c.prices.map((p) => [p.profile, p.price, p.currency, p.country.iso]),
      ]);
      assert.deepEqual(flat, [
        ['DE', 'Germany', [[B, '9.99', 'USD', 'DE']]],
        // 333 per 2000 MB is 166.5 per 1000 MB: rounded up to the cent.
        ['FR', 'France', [[A, '1.67', 'USD', 'FR']]],
        // 1200 per 3000 MB beats 500 per 1000 MB; group B's GB bundle is unlimited: no price.
        ['GB', 'United Kingdom', [[A, '4.00', 'USD', 'GB']]],
      ]);
      for (const p of body.prices.flatMap((c) => c.prices)) {
        assert.match(p.id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      }
      const expected = createHash('sha256').update(JSON.stringify(body.prices)).digest('hex');
      assert.equal(body.hash, expected);
      // The same prices, the same ids and hash.
      assert.deepEqual((await prices(consumer)).json(), body);
    });

    it('changes the hash when a price changes', async () => {
      const before = (await prices(consumer)).json<Prices>();
      await addBundles(t, [
        fixtureBundle('prices_de_2gb', 999, { groups: [B], countries: ['DE'], dataAmount: 2000 }),
      ]);
      const after = (await prices(consumer)).json<Prices>();
      assert.notEqual(after.hash, before.hash);
      const de = after.prices.find((c) => c.country.iso === 'DE')?.prices[0];
      assert.equal(de?.price, '5.00');
      assert.equal(de?.id, before.prices.find((c) => c.country.iso === 'DE')?.prices[0]?.id);
    });

    it('shows each organisation the prices of its own groups', async () => {
      const body = (await prices(other)).json<Prices>();
      assert.deepEqual(
        body.prices.map((c) => [c.country.iso, c.prices.map((p) => [p.profile, p.price])]),
        [['GB', [[C, '0.01']]]],
      );
    });

    it('refuses an organisation on FixedCost billing, a missing key, and the earlier versions', async () => {
      const refused = await prices(fixed);
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.json<{ code: string }>().code, 'consumption_billing_only');
      assert.equal((await prices(undefined)).statusCode, 403);
      for (const version of ['2.1', '2.4']) {
        assert.equal((await prices(consumer, version)).statusCode, 404, `v${version}`);
      }
    });
  });
}
