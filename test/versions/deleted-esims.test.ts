import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FR_1MB, buy, seedTestBundles } from '../esim-fixtures.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { unzip } from '../zip.js';

// A deleted (deactivated) eSIM keeps no install secrets, on any version and in any format: the
// install data of a reference whose eSIMs were all deleted is a 410 `esim_gone`
// (docs/esim-state.md), one with some deleted leaves those out, and neither the order read back
// nor the eSIM itself shows its matching ID, PIN or PUK again. Ordering onto it is a 400
// `esim_deactivated`.

const VERSIONS = ['2.1', '2.2', '2.3', '2.4', '2.5'] as const;
const FORMATS = [
  ['json', 'application/json'],
  ['csv', 'text/csv'],
  ['zip', 'application/zip'],
] as const;

for (const kind of DATABASES) {
  describe(`deleted eSIMs give no install secrets [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000 });
    });
    after(() => t.close());

    const call = (method: 'GET' | 'POST' | 'DELETE', url: string, accept?: string) =>
      t.request(org.apiKey, { method, url, headers: accept === undefined ? {} : { accept } });

    const remove = async (iccid: string): Promise<void> => {
      const res = await call('DELETE', `/v2.5/esims/${iccid}`);
      assert.equal(res.statusCode, 200, res.body);
    };

    it('answers 410 esim_gone for the install data of every version, format and path', async () => {
      const bought = await buy(t, org, FR_1MB.name);
      const [iccid = ''] = bought.iccids;
      const esim = (await call('GET', `/v2.5/esims/${iccid}`)).json<{ matchingId: string }>();
      await remove(iccid);
      const reference = bought.orderReference;
      for (const v of VERSIONS) {
        for (const [format, accept] of FORMATS) {
          for (const url of [
            `/v${v}/esims/assignments?reference=${reference}&format=${format}`,
            `/v${v}/esims/assignments?reference=${reference}`,
          ]) {
            const res = await call('GET', url, accept);
            assert.equal(res.statusCode, 410, `${url} (${accept}): ${res.body.slice(0, 200)}`);
            assert.equal(res.json<{ code: string }>().code, 'esim_gone', url);
            assert.ok(!res.body.includes(esim.matchingId), `${url} shows the matching ID`);
          }
        }
        for (const path of ['qr', 'csv']) {
          const res = await call('GET', `/v${v}/esims/${path}/${reference}`);
          assert.equal(res.statusCode, 410, `v${v} /esims/${path}: ${res.body.slice(0, 200)}`);
        }
      }
    });

    it('leaves a deleted eSIM out of a reference that still has live ones', async () => {
      const bought = await buy(t, org, FR_1MB.name, { quantity: 2 });
      const [deleted = '', kept = ''] = bought.iccids;
      await remove(deleted);
      const reference = bought.orderReference;
      for (const v of VERSIONS.slice(1)) {
        const json = await call(
          'GET',
          `/v${v}/esims/assignments?reference=${reference}&format=json`,
        );
        assert.equal(json.statusCode, 200, json.body);
        assert.deepEqual(
          json.json<{ iccid: string }[]>().map((e) => e.iccid),
          [kept],
          `v${v} JSON`,
        );
        const csv = await call('GET', `/v${v}/esims/assignments?reference=${reference}&format=csv`);
        assert.ok(!csv.body.includes(deleted), `v${v} CSV lists the deleted eSIM`);
        const zip = await call('GET', `/v${v}/esims/assignments?reference=${reference}&format=zip`);
        assert.equal(zip.statusCode, 200);
        const names = [...(await unzip(zip.rawPayload)).keys()];
        assert.ok(names.includes(`${kept}.png`), `v${v} ZIP: ${names.join(', ')}`);
        assert.ok(!names.includes(`${deleted}.png`), `v${v} ZIP has the deleted eSIM's QR code`);
      }
    });

    it('shows no matching ID, PIN or PUK of a deleted eSIM on the eSIM or its order', async () => {
      const bought = await buy(t, org, FR_1MB.name);
      const [iccid = ''] = bought.iccids;
      const before = (await call('GET', `/v2.5/esims/${iccid}`)).json<{
        matchingId: string;
        pin: string;
        puk: string;
      }>();
      await remove(iccid);
      for (const v of VERSIONS) {
        const res = await call('GET', `/v${v}/esims/${iccid}?additionalFields=appleInstallUrl`);
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json<Record<string, unknown>>();
        assert.equal(body['matchingId'], '', `v${v}`);
        assert.equal(body['pin'], '', `v${v}`);
        assert.equal(body['puk'], '', `v${v}`);
        assert.equal(body['appleInstallUrl'], undefined, `v${v}`);
        const order = await call('GET', `/v${v}/orders/${bought.orderReference}`);
        assert.equal(order.statusCode, 200, order.body);
        for (const secret of [before.matchingId, before.pin, before.puk]) {
          assert.ok(!order.body.includes(secret), `v${v} order shows ${secret}`);
          assert.ok(!res.body.includes(secret), `v${v} eSIM shows ${secret}`);
        }
      }
    });

    it('answers an order onto a deleted eSIM with 400 esim_deactivated', async () => {
      const [iccid = ''] = (await buy(t, org, FR_1MB.name)).iccids;
      await remove(iccid);
      for (const v of ['2.1', '2.5']) {
        const res = await t.request(org.apiKey, {
          method: 'POST',
          url: `/v${v}/orders`,
          payload: {
            type: 'transaction',
            assign: true,
            order: [{ type: 'bundle', item: FR_1MB.name, quantity: 1, iccids: [iccid] }],
          },
        });
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json<{ code: string }>().code, 'esim_deactivated', `v${v}`);
      }
    });
  });
}
