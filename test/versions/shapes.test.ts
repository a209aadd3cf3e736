import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { FR_1MB, buy, seedTestBundles, sim } from '../esim-fixtures.js';

// The wire shapes of the later versions, route by route, over the same data as /v2.1.

for (const kind of DATABASES) {
  describe(`later versions' shapes [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let other: TestOrg;
    let iccid: string;

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000, groups: ['Standard eSIM Bundles'] });
      other = await t.createOrg({ balance: 100_000 });
      [iccid = ''] = (await buy(t, org, FR_1MB.name)).iccids;
      await sim(t, 'POST', `/_sim/esims/${iccid}/install`, {});
    });
    after(() => t.close());

    const get = (url: string, key = org.apiKey) => t.request(key, { method: 'GET', url });

    it('GET /organisation: wrapped on v2.1 to v2.3, the object itself with decimals on v2.4+', async () => {
      const v21 = (await get('/v2.3/organisation')).json<{
        organisations: { balance: number }[];
      }>();
      assert.equal(v21.organisations[0]?.balance, 99_900);
      for (const v of ['2.4', '2.5']) {
        const res = await get(`/v${v}/organisation`);
        assert.equal(res.statusCode, 200);
        const body = res.json<Record<string, unknown>>();
        assert.equal(body['balance'], 999);
        assert.equal(body['testCredit'], 0);
        assert.equal(body['currency'], 'USD');
        assert.ok(Array.isArray(body['users']));
        assert.equal('organisations' in body, false);
      }
    });

    it('GET /catalogue: bare array on v2.1, the envelope from v2.2, decimal prices from v2.4', async () => {
      const v21 = (await get('/v2.1/catalogue?perPage=2')).json<
        { name: string; price: number }[]
      >();
      assert.ok(Array.isArray(v21));
      const v22 = await get('/v2.2/catalogue?perPage=2');
      assert.equal(v22.statusCode, 200);
      const page = v22.json<{
        bundles: { price: number }[];
        pageCount: number;
        rows: number;
        pageSize: number;
      }>();
      assert.deepEqual(Object.keys(page), ['bundles', 'pageCount', 'rows', 'pageSize']);
      assert.deepEqual(page.bundles, v21);
      assert.equal(page.pageSize, 2);
      assert.equal(page.rows, Number(v22.headers['x-total-count']));
      assert.equal(page.pageCount, Math.ceil(page.rows / 2));
      const v24 = (await get('/v2.4/catalogue?perPage=2')).json<{ bundles: { price: number }[] }>();
      assert.deepEqual(
        v24.bundles.map((b) => b.price),
        v21.map((b) => b.price / 100),
      );
      const one = (await get(`/v2.5/catalogue/bundle/${FR_1MB.name}`)).json<{ price: number }>();
      assert.equal(one.price, 1);
      const none = await get('/v2.4/catalogue?description=nothing-matches-this');
      assert.deepEqual(none.json(), { bundles: [], pageCount: 0, rows: 0, pageSize: 50 });
    });

    it('GET /catalogue: a page kept by the answer cache is in each caller’s currency', async () => {
      const yen = await t.createOrg({ currency: 'JPY', groups: ['Standard eSIM Bundles'] });
      const url = '/v2.5/catalogue?perPage=3';
      const minor = (await get('/v2.1/catalogue?perPage=3')).json<{ price: number }[]>();
      const prices = (key: string) =>
        get(url, key).then((r) => r.json<{ bundles: { price: number }[] }>().bundles);
      // Each twice: the second answer comes from the cache.
      for (let i = 0; i < 2; i += 1) {
        const usd = await prices(org.apiKey);
        const jpy = await prices(yen.apiKey);
        assert.deepEqual(
          usd.map((b) => b.price),
          minor.map((b) => b.price / 100),
        );
        assert.deepEqual(
          jpy.map((b) => b.price),
          minor.map((b) => b.price),
        );
      }
      const again = (await get('/v2.1/catalogue?perPage=3')).json<{ price: number }[]>();
      assert.deepEqual(again, minor);
    });

    it('GET /esims/{iccid}: firstInstalledDateTime in ms from v2.4; another organisation gets 404', async () => {
      const v21 = (await get(`/v2.1/esims/${iccid}`)).json<{ firstInstalledDateTime: string }>();
      for (const v of ['2.4', '2.5']) {
        // Twice: the second read may come from the detail cache, and must have the same shape.
        for (let i = 0; i < 2; i += 1) {
          const body = (await get(`/v${v}/esims/${iccid}`)).json<Record<string, unknown>>();
          assert.equal(body['firstInstalledDateTime'], Date.parse(v21.firstInstalledDateTime));
          assert.equal(body['iccid'], iccid);
        }
      }
      const again = (await get(`/v2.1/esims/${iccid}`)).json<{ firstInstalledDateTime: string }>();
      assert.equal(again.firstInstalledDateTime, v21.firstInstalledDateTime);
      for (const v of ['2.2', '2.3', '2.4', '2.5']) {
        const res = await get(`/v${v}/esims/${iccid}`, other.apiKey);
        assert.equal(res.statusCode, 404);
        assert.ok(typeof res.json<{ message: string }>().message === 'string');
      }
    });

    it('history: v2.3 lower-case states, v2.4 {name, bundleName, date}', async () => {
      const v21 = (await get(`/v2.1/esims/${iccid}/history`)).json<Record<string, string>[]>();
      const v23 = (await get(`/v2.3/esims/${iccid}/history`)).json<Record<string, string>[]>();
      assert.deepEqual(
        v23.map((h) => h['bundleState']),
        v21.map((h) => (h['bundleState'] ?? '').toLowerCase()),
      );
      const v24 = (await get(`/v2.4/esims/${iccid}/history`)).json<Record<string, string>[]>();
      assert.equal(v24.length, v21.length);
      for (const [i, item] of v24.entries()) {
        assert.deepEqual(Object.keys(item), ['name', 'bundleName', 'date']);
        assert.equal(item['bundleName'], v21[i]?.['bundle']);
      }
    });

    it('bundles: lower-case bundleState from v2.3, limit honoured', async () => {
      await buy(t, org, FR_1MB.name, { iccids: [iccid] });
      const v21 = (await get(`/v2.1/esims/${iccid}/bundles`)).json<{
        bundles: { assignments: { bundleState: string }[] }[];
      }>();
      assert.equal(v21.bundles[0]?.assignments.length, 2);
      const v23 = (await get(`/v2.3/esims/${iccid}/bundles`)).json<typeof v21>();
      assert.deepEqual(
        v23.bundles[0]?.assignments.map((a) => a.bundleState),
        v21.bundles[0]?.assignments.map((a) => a.bundleState.toLowerCase()),
      );
      const limited = (await get(`/v2.4/esims/${iccid}/bundles?limit=1`)).json<typeof v21>();
      assert.equal(limited.bundles[0]?.assignments.length, 1);
      const bad = await get(`/v2.4/esims/${iccid}/bundles?limit=0`);
      assert.equal(bad.statusCode, 400);
      const one = (await get(`/v2.5/esims/${iccid}/bundles/${FR_1MB.name}`)).json<{
        assignments: { bundleState: string }[];
      }>();
      assert.ok(one.assignments.every((a) => a.bundleState === a.bundleState.toLowerCase()));
    });

    it('PUT /esims: iccid and customerRef in the query with an empty JSON body', async () => {
      const res = await t.request(org.apiKey, {
        method: 'PUT',
        url: `/v2.4/esims?iccid=${iccid}&customerRef=fleet-9`,
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      });
      assert.equal(res.statusCode, 200, res.body);
      const empty = await t.request(org.apiKey, {
        method: 'PUT',
        url: `/v2.5/esims?iccid=${iccid}&customerRef=fleet-10`,
        headers: { 'content-type': 'application/json' },
        payload: '',
      });
      assert.equal(empty.statusCode, 200, empty.body);
      const read = (await get(`/v2.1/esims/${iccid}`)).json<{ customerRef: string }>();
      assert.equal(read.customerRef, 'fleet-10');
      const foreign = await t.request(other.apiKey, {
        method: 'PUT',
        url: `/v2.4/esims?iccid=${iccid}&customerRef=x`,
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      });
      assert.equal(foreign.statusCode, 404);
    });

    it('GET /orders: {orders: [...]} from v2.2, decimals from v2.4', async () => {
      const v22 = (await get('/v2.2/orders')).json<{
        orders: { total: number; assigned: boolean }[];
      }>();
      assert.ok(v22.orders.length >= 2);
      assert.equal(v22.orders[0]?.total, 100);
      assert.equal(v22.orders[0]?.assigned, true);
      const v24 = (await get('/v2.4/orders')).json<{ orders: { total: number }[] }>();
      assert.equal(v24.orders[0]?.total, 1);
    });
  });
}
