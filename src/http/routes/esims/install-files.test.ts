import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FR_1MB, buy, getJson, seedTestBundles } from '../../../../test/esim-fixtures.js';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';
import { decodeQr, unzip } from '../../../../test/zip.js';

for (const kind of DATABASES) {
  describe(`GET /v2.1/esims/qr/{reference} and /esims/csv/{reference} [${kind}]`, () => {
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
    const get = (who: TestOrg, url: string) => t.request(who.apiKey, { method: 'GET', url });

    it('serves the CSV of an order, the same file as the assignments route', async () => {
      const res = await get(org, `/v2.1/esims/csv/${reference}`);
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /^text\/csv; charset=utf-8/);
      assert.equal(
        res.headers['content-disposition'],
        `attachment; filename="esims-${reference}.csv"`,
      );
      const lines = res.body.trim().split('\r\n');
      assert.equal(lines[0], 'ICCID,Matching ID,RSP URL,Bundle');
      const rows = lines.slice(1).map((l) => l.split(','));
      assert.deepEqual(rows.map((r) => r[0]).sort(), [...iccids].sort());
      for (const [iccid, matchingId, rsp, bundle] of rows) {
        assert.equal(`LPA:1$${rsp}$${matchingId}`, await activation(iccid ?? ''));
        assert.equal(bundle, FR_1MB.name);
      }
      const same = await get(org, `/v2.1/esims/assignments?reference=${reference}&format=csv`);
      assert.equal(same.body, res.body);
    });

    it('serves a ZIP of one PNG QR code per eSIM carrying its activation code', async () => {
      const res = await get(org, `/v2.1/esims/qr/${reference}`);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'application/zip');
      assert.equal(
        res.headers['content-disposition'],
        `attachment; filename="esims-${reference}.zip"`,
      );
      const files = await unzip(res.rawPayload);
      assert.deepEqual([...files.keys()].sort(), iccids.map((i) => `${i}.png`).sort());
      for (const iccid of iccids) {
        const png = files.get(`${iccid}.png`);
        assert.ok(png !== undefined);
        assert.equal(decodeQr(png), await activation(iccid));
      }
    });

    it('serves the files of an apply reference, with the key in the query as a browser would', async () => {
      await buy(t, org, FR_1MB.name, { assign: false });
      const applied = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/esims/apply',
        payload: { name: FR_1MB.name },
      });
      assert.equal(applied.statusCode, 200, applied.body);
      const { applyReference, esims } = applied.json() as {
        applyReference: string;
        esims: { iccid: string }[];
      };
      const csv = await t.request(undefined, {
        method: 'GET',
        url: `/v2.1/esims/csv/${applyReference}?api_key=${org.apiKey}`,
      });
      assert.equal(csv.statusCode, 200, csv.body);
      assert.equal(csv.body.trim().split('\r\n')[1]?.split(',')[0], esims[0]?.iccid);
      const zip = await t.request(undefined, {
        method: 'GET',
        url: `/v2.1/esims/qr/${applyReference}?api_key=${org.apiKey}`,
      });
      assert.equal(zip.statusCode, 200);
      assert.deepEqual([...(await unzip(zip.rawPayload)).keys()], [`${esims[0]?.iccid}.png`]);
    });

    it('is a 404 for an unknown reference and for another organisation’s', async () => {
      for (const path of ['csv', 'qr']) {
        const foreign = await get(other, `/v2.1/esims/${path}/${reference}`);
        assert.equal(foreign.statusCode, 404, path);
        assert.equal(foreign.json().message, `reference ${reference} not found`);
        const unknown = await get(org, `/v2.1/esims/${path}/no-such-reference`);
        assert.equal(unknown.statusCode, 404);
        const tooLong = await get(org, `/v2.1/esims/${path}/${'r'.repeat(101)}`);
        // Longer than any path parameter may be (Fastify's maxParamLength).
        assert.equal(tooLong.statusCode, 414);
        assert.equal(typeof tooLong.json().message, 'string');
        assert.equal(
          (await get({ id: '', apiKey: 'esim_wrong' }, `/v2.1/esims/${path}/${reference}`))
            .statusCode,
          403,
        );
      }
    });
  });
}
