import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FR_1MB, FR_2MB, buy, seedTestBundles } from '../esim-fixtures.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { decodeQr, unzip } from '../zip.js';

// GET /esims/assignments on the later versions: several references, a JSON list, the CSV in the
// ZIP, additionalFields; v2.5 answers JSON when the client does not say. v2.1 stays as it was.

const APPLE = 'https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=';

for (const kind of DATABASES) {
  describe(`GET /esims/assignments on v2.2 to v2.5 [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let other: TestOrg;
    let ordered: { orderReference: string; iccids: string[] };
    let applied: { reference: string; iccid: string };
    let foreign: string;

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000 });
      other = await t.createOrg({ balance: 100_000 });
      ordered = await buy(t, org, FR_1MB.name, { quantity: 2 });
      await buy(t, org, FR_2MB.name, { assign: false });
      const res = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.2/esims/apply',
        payload: { name: FR_2MB.name },
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json<{ applyReference: string; esims: { iccid: string }[] }>();
      applied = { reference: body.applyReference, iccid: body.esims[0]?.iccid ?? '' };
      foreign = (await buy(t, other, FR_1MB.name)).orderReference;
    });
    after(() => t.close());

    const get = (version: string, query: string, accept?: string) =>
      t.request(org.apiKey, {
        method: 'GET',
        url: `/v${version}/esims/assignments?${query}`,
        headers: accept === undefined ? {} : { accept },
      });

    it('v2.2: a CSV of several references, in the order asked, without Accept', async () => {
      const res = await get('2.2', `reference=${applied.reference},${ordered.orderReference}`);
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /^text\/csv/);
      const lines = res.body.trim().split('\r\n');
      assert.equal(lines[0], 'ICCID,Matching ID,RSP URL,Bundle');
      const rows = lines.slice(1).map((l) => l.split(','));
      assert.deepEqual(
        rows.map((r) => r[3]),
        [FR_2MB.name, FR_1MB.name, FR_1MB.name],
      );
      assert.equal(rows[0]?.[0], applied.iccid);
      assert.deepEqual(
        rows
          .slice(1)
          .map((r) => r[0])
          .sort(),
        [...ordered.iccids].sort(),
      );
    });

    it('v2.2: JSON is a list, also for one eSIM, with the install profile and the row fields', async () => {
      const res = await get('2.2', `reference=${applied.reference}`, 'application/json');
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      const list = res.json<Record<string, string>[]>();
      assert.ok(Array.isArray(list));
      assert.equal(list.length, 1);
      const [entry] = list;
      assert.deepEqual(Object.keys(entry ?? {}), [
        'iccid',
        'matchingId',
        'smdpAddress',
        'profileStatus',
        'pin',
        'puk',
        'firstInstalledDateTime',
        'rspUrl',
        'bundle',
        'reference',
      ]);
      assert.equal(entry?.['iccid'], applied.iccid);
      assert.equal(entry?.['rspUrl'], entry?.['smdpAddress']);
      assert.equal(entry?.['bundle'], FR_2MB.name);
      assert.equal(entry?.['reference'], applied.reference);
      assert.equal(entry?.['profileStatus'], 'Released');
      // v2.1 answers the same reference as the eSIM object itself.
      const v21 = await get('2.1', `reference=${applied.reference}`, 'application/json');
      assert.equal(Array.isArray(v21.json()), false);
      assert.equal(v21.json<{ iccid: string }>().iccid, applied.iccid);
    });

    it('v2.3/v2.4: additionalFields=appleInstallUrl in JSON and as a CSV column', async () => {
      const query = `reference=${ordered.orderReference}&additionalFields=appleInstallUrl`;
      const json = await get('2.4', query, 'application/json');
      assert.equal(json.statusCode, 200, json.body);
      for (const e of json.json<Record<string, string>[]>()) {
        assert.equal(
          e['appleInstallUrl'],
          APPLE + encodeURIComponent(`LPA:1$${e['smdpAddress']}$${e['matchingId']}`),
        );
      }
      const csv = await get('2.3', query, 'text/csv');
      const lines = csv.body.trim().split('\r\n');
      assert.equal(lines[0], 'ICCID,Matching ID,RSP URL,Bundle,Apple Install URL');
      assert.ok(lines.slice(1).every((l) => l.split(',')[4]?.startsWith(APPLE)));
      // A name it does not know is ignored, as the live service ignores it.
      const unknown = await get('2.2', `reference=${ordered.orderReference}&additionalFields=nope`);
      assert.equal(unknown.statusCode, 200);
      assert.equal(unknown.body.trim().split('\r\n')[0], 'ICCID,Matching ID,RSP URL,Bundle');
    });

    it('v2.2: a ZIP of QR codes with the CSV mapping them', async () => {
      const refs = `${ordered.orderReference},${applied.reference}`;
      const res = await get('2.2', `reference=${refs}`, 'application/zip');
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/zip/);
      assert.match(String(res.headers['content-disposition']), /-and-1-more\.zip"$/);
      const files = await unzip(res.rawPayload);
      const iccids = [...ordered.iccids, applied.iccid];
      assert.deepEqual(
        [...files.keys()].sort(),
        [...iccids.map((i) => `${i}.png`), 'esims.csv'].sort(),
      );
      const csv = files.get('esims.csv')?.toString('utf8') ?? '';
      for (const iccid of iccids) {
        const row =
          csv
            .split('\r\n')
            .find((l) => l.startsWith(`${iccid},`))
            ?.split(',') ?? [];
        assert.equal(
          decodeQr(files.get(`${iccid}.png`) ?? Buffer.alloc(0)),
          `LPA:1$${row[2]}$${row[1]}`,
        );
      }
    });

    it('v2.5: JSON without Accept or with only */*; CSV when asked', async () => {
      for (const accept of [undefined, '*/*']) {
        const res = await get('2.5', `reference=${ordered.orderReference}`, accept);
        assert.equal(res.statusCode, 200);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        assert.equal(res.json<unknown[]>().length, 2);
      }
      const csv = await get('2.5', `reference=${ordered.orderReference}`, 'text/csv');
      assert.match(String(csv.headers['content-type']), /^text\/csv/);
      // v2.2 to v2.4 keep the documented CSV for */*, as v2.1 does.
      for (const version of ['2.1', '2.4']) {
        const res = await get(version, `reference=${ordered.orderReference}`, '*/*');
        assert.match(String(res.headers['content-type']), /^text\/csv/);
      }
    });

    it('another organisation\u2019s reference, or an unknown one, is a 404 naming it', async () => {
      for (const missing of [foreign, 'no-such-reference']) {
        const res = await get('2.2', `reference=${ordered.orderReference},${missing}`);
        assert.equal(res.statusCode, 404);
        assert.equal(res.json<{ message: string }>().message, `reference ${missing} not found`);
      }
      const mine = await t.request(other.apiKey, {
        method: 'GET',
        url: `/v2.4/esims/assignments?reference=${ordered.orderReference}`,
      });
      assert.equal(mine.statusCode, 404);
    });

    it('an empty reference in the list is a 400 naming the parameter', async () => {
      const res = await get('2.2', `reference=${ordered.orderReference},`);
      assert.equal(res.statusCode, 400);
      assert.match(res.json<{ message: string }>().message, /query parameter reference/);
    });
  });
}
