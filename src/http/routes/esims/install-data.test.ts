import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FR_1MB, buy, getJson, seedTestBundles } from '../../../../test/esim-fixtures.js';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';
import { decodeQr, unzip } from '../../../../test/zip.js';
import { EsimSchema } from './esim-view.js';

/** The profile part of GET /esims/{iccid}: what install data answers as JSON. */
async function profileOf(t: TestApp, org: TestOrg, iccid: string): Promise<unknown> {
  const details = (await getJson(t, org, `/v2.1/esims/${iccid}`)) as Record<string, unknown>;
  return Object.fromEntries(Object.keys(EsimSchema.properties).map((k) => [k, details[k]]));
}

for (const kind of DATABASES) {
  describe(`GET /v2.1/esims/assignments (install data) [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let other: TestOrg;
    let reference: string;
    let iccids: string[];

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000 });
      other = await t.createOrg({ balance: 100_000 });
      ({ orderReference: reference, iccids } = await buy(t, org, FR_1MB.name, { quantity: 2 }));
    });
    after(() => t.close());

    const activation = async (iccid: string): Promise<string> => {
      const e = (await getJson(t, org, `/v2.1/esims/${iccid}`)) as Record<string, string>;
      return `LPA:1$${e['smdpAddress']}$${e['matchingId']}`;
    };

    it('returns a CSV with one row per eSIM', async () => {
      const res = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/esims/assignments?reference=${reference}`,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /^text\/csv/);
      assert.match(String(res.headers['content-disposition']), /attachment; filename=".*\.csv"/);
      const lines = res.body.trim().split('\r\n');
      assert.equal(lines[0], 'ICCID,Matching ID,RSP URL,Bundle');
      const rows = lines.slice(1).map((l) => l.split(','));
      assert.deepEqual(rows.map((r) => r[0]).sort(), [...iccids].sort());
      for (const [iccid, matchingId, rsp, bundle] of rows) {
        assert.equal(`LPA:1$${rsp}$${matchingId}`, await activation(iccid ?? ''));
        assert.equal(bundle, FR_1MB.name);
      }
    });

    it('returns a ZIP of PNG QR codes that decode to each activation code', async () => {
      for (const request of [
        { url: `/v2.1/esims/assignments?reference=${reference}&format=zip` },
        {
          url: `/v2.1/esims/assignments?reference=${reference}`,
          headers: { accept: 'application/zip' },
        },
      ]) {
        const res = await t.request(org.apiKey, { method: 'GET', ...request });
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['content-type'], 'application/zip');
        const files = await unzip(res.rawPayload);
        assert.deepEqual([...files.keys()].sort(), iccids.map((i) => `${i}.png`).sort());
        for (const iccid of iccids) {
          const png = files.get(`${iccid}.png`);
          assert.ok(png);
          assert.equal(decodeQr(png), await activation(iccid));
        }
      }
    });

    it('answers JSON to Accept: application/json: the eSIMs with their profile details', async () => {
      const res = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/esims/assignments?reference=${reference}`,
        headers: { accept: 'application/json' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.match(String(res.headers['vary']), /Accept/);
      const several = res.json() as Record<string, string>[];
      assert.ok(Array.isArray(several), 'several eSIMs: an array');
      assert.deepEqual(several.map((e) => e['iccid']).sort(), [...iccids].sort());
      for (const item of several) {
        assert.deepEqual(item, await profileOf(t, org, item['iccid'] ?? ''));
        assert.deepEqual(Object.keys(item).sort(), [
          'firstInstalledDateTime',
          'iccid',
          'matchingId',
          'pin',
          'profileStatus',
          'puk',
          'smdpAddress',
        ]);
      }
      // One eSIM: the object itself, as the live service answers.
      const single = await buy(t, org, FR_1MB.name, { quantity: 1 });
      const one = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/esims/assignments?reference=${single.orderReference}`,
        headers: { accept: 'application/json' },
      });
      assert.equal(one.statusCode, 200);
      assert.deepEqual(one.json(), await profileOf(t, org, single.iccids[0] ?? ''));
    });

    it('negotiates Accept with q-values and wildcards; CSV by default; format wins', async () => {
      const cases: [Record<string, string>, string, RegExp][] = [
        [{}, '', /^text\/csv/],
        [{ accept: '*/*' }, '', /^text\/csv/],
        [{ accept: 'text/html' }, '', /^text\/csv/],
        [{ accept: 'application/json, text/plain, */*' }, '', /^application\/json/],
        [{ accept: 'text/csv;q=0.5, application/json' }, '', /^application\/json/],
        [{ accept: 'application/json;q=0.1, application/zip' }, '', /^application\/zip/],
        [{ accept: 'application/*' }, '', /^application\/(json|zip)/],
        [{ accept: 'application/json' }, '&format=csv', /^text\/csv/],
        [{}, '&format=json', /^application\/json/],
      ];
      for (const [headers, query, type] of cases) {
        const res = await t.request(org.apiKey, {
          method: 'GET',
          url: `/v2.1/esims/assignments?reference=${reference}${query}`,
          headers,
        });
        assert.equal(res.statusCode, 200, `${JSON.stringify(headers)} ${query}`);
        assert.match(
          String(res.headers['content-type']),
          type,
          `${JSON.stringify(headers)} ${query}`,
        );
      }
    });

    it('answers 404 for an unknown or another organisation\u2019s reference', async () => {
      for (const [key, ref] of [
        [org.apiKey, '00000000-0000-4000-8000-000000000000'],
        [other.apiKey, reference],
      ] as const) {
        const res = await t.request(key, {
          method: 'GET',
          url: `/v2.1/esims/assignments?reference=${ref}`,
        });
        assert.equal(res.statusCode, 404);
        assert.equal(res.json().message, `reference ${ref} not found`);
      }
      const missing = await t.request(org.apiKey, {
        method: 'GET',
        url: '/v2.1/esims/assignments',
      });
      assert.equal(missing.statusCode, 400);
    });
  });
}
