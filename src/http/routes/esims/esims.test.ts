import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { luhnCheckDigit } from '../../../domain/esims/esim-issuer.js';
import { FR_1MB, buy, getJson, seedTestBundles } from '../../../../test/esim-fixtures.js';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';

/** A well-formed ICCID no one owns. */
function unknownIccid(): string {
  const body = '898800000000000001';
  return body + String(luhnCheckDigit(body));
}

for (const kind of DATABASES) {
  describe(`eSIM routes [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let other: TestOrg;
    let iccid: string;
    let iccids: string[];

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000 });
      other = await t.createOrg({ balance: 100_000 });
      iccids = (await buy(t, org, FR_1MB.name, { quantity: 3 })).iccids;
      iccid = iccids[0] ?? '';
    });
    after(() => t.close());

    it('gets an eSIM with every spec field, and appleInstallUrl on request', async () => {
      const esim = (await getJson(t, org, `/v2.1/esims/${iccid}`)) as Record<string, string>;
      assert.equal(esim['iccid'], iccid);
      assert.match(esim['matchingId'] ?? '', /^[A-Z0-9]{5}(-[A-Z0-9]{5}){3}$/);
      assert.equal(esim['smdpAddress'], t.config.smdpAddress);
      assert.equal(esim['profileStatus'], 'Released');
      assert.match(esim['pin'] ?? '', /^\d{4}$/);
      assert.match(esim['puk'] ?? '', /^\d{8}$/);
      assert.equal(esim['firstInstalledDateTime'], '');
      assert.equal('appleInstallUrl' in esim, false);

      const withUrl = (await getJson(
        t,
        org,
        `/v2.1/esims/${iccid}?additionalFields=appleInstallUrl`,
      )) as Record<string, string>;
      const code = `LPA:1$${esim['smdpAddress']}$${esim['matchingId']}`;
      assert.equal(
        withUrl['appleInstallUrl'],
        `https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=${encodeURIComponent(code)}`,
      );
      // A name it does not know is ignored, as the live service ignores it.
      const unknown = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/esims/${iccid}?additionalFields=nope`,
      });
      assert.equal(unknown.statusCode, 200);
      assert.deepEqual(unknown.json(), esim);
    });

    it('lists the organisation eSIMs a page at a time', async () => {
      const page1 = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/esims?perPage=2' });
      assert.equal(page1.statusCode, 200);
      assert.equal(page1.headers['x-total-count'], '3');
      assert.match(String(page1.headers['link']), /rel="next"/);
      // Declared parameters are carried into the links; unknown ones are not echoed.
      const long = 'x'.repeat(9000);
      const echoed = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/esims?perPage=2&unknown=${long}&Other=1`,
      });
      const link = String(echoed.headers['link']);
      assert.match(link, /perPage=2/);
      assert.doesNotMatch(link, /unknown|Other=/);
      assert.ok(link.length < 1000, String(link.length));
      const body1 = page1.json();
      assert.equal(body1.rows, 3);
      assert.equal(body1.pageCount, 2);
      assert.equal(body1.esims.length, 2);
      const body2 = (await getJson(t, org, '/v2.1/esims?perPage=2&page=2')) as {
        esims: { iccid: string }[];
      };
      const listed = [...body1.esims, ...body2.esims].map((e: { iccid: string }) => e.iccid);
      assert.deepEqual([...listed].sort(), [...iccids].sort());
      const none = (await getJson(t, other, '/v2.1/esims')) as { rows: number; esims: unknown[] };
      assert.equal(none.rows, 0);
      assert.deepEqual(none.esims, []);
      const tooMany = await t.request(org.apiKey, {
        method: 'GET',
        url: '/v2.1/esims?perPage=501',
      });
      assert.equal(tooMany.statusCode, 400);
    });

    it('lists items with the eSIM fields, createDate, and msisdn on v2.1 and v2.5 (docs/esims.md)', async () => {
      const detail = (await getJson(t, org, `/v2.1/esims/${iccid}`)) as Record<string, unknown>;
      const fields = Object.keys(detail);
      const expected: Record<string, string[]> = {
        '2.1': [...fields, 'createDate', 'msisdn'],
        '2.2': [...fields, 'createDate'],
        '2.3': [...fields, 'createDate'],
        '2.4': [...fields, 'createDate'],
        '2.5': [...fields, 'createDate', 'msisdn', 'state'],
      };
      for (const [version, keys] of Object.entries(expected)) {
        const page = (await getJson(t, org, `/v${version}/esims?perPage=1`)) as {
          esims: Record<string, unknown>[];
        };
        const [item] = page.esims;
        assert.equal(item?.['iccid'], iccid, `v${version}: oldest first`);
        assert.deepEqual(Object.keys(item ?? {}).sort(), [...keys].sort(), `v${version}`);
        assert.match(String(item?.['createDate']), /^\d{4}-\d\d-\d\dT[\d:.]+Z$/, `v${version}`);
        if ('msisdn' in (item ?? {})) assert.equal(item?.['msisdn'], '', 'not numbered yet');
      }
    });

    it('lists the bundles of an eSIM and one bundle by name', async () => {
      const all = (await getJson(t, org, `/v2.1/esims/${iccid}/bundles`)) as {
        bundles: { name: string; description: string; assignments: { bundleState: string }[] }[];
      };
      assert.equal(all.bundles.length, 1);
      assert.equal(all.bundles[0]?.name, FR_1MB.name);
      assert.equal(all.bundles[0]?.description, FR_1MB.description);
      assert.equal(all.bundles[0]?.assignments[0]?.bundleState, 'Queued');
      const one = (await getJson(t, org, `/v2.1/esims/${iccid}/bundles/${FR_1MB.name}`)) as {
        name: string;
      };
      assert.equal(one.name, FR_1MB.name);
      const never = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/esims/${iccid}/bundles/esim_other_1GB_7D_DE_V2`,
      });
      assert.equal(never.statusCode, 404);
    });

    const routes = (
      id: string,
    ): { method: 'GET' | 'POST' | 'DELETE'; url: string; payload?: object }[] => [
      { method: 'GET', url: `/v2.1/esims/${id}` },
      { method: 'GET', url: `/v2.1/esims/${id}/history` },
      { method: 'GET', url: `/v2.1/esims/${id}/location` },
      { method: 'GET', url: `/v2.1/esims/${id}/bundles` },
      { method: 'GET', url: `/v2.1/esims/${id}/bundles/${FR_1MB.name}` },
      { method: 'POST', url: `/v2.1/esims/${id}/sms`, payload: { message: 'hi' } },
      {
        method: 'DELETE',
        url: `/v2.1/esims/${id}/bundles/${FR_1MB.name}/applications/00000000-0000-4000-8000-000000000000?type=validate`,
      },
      {
        method: 'DELETE',
        url: `/v2.1/esims/${id}/bundles/${FR_1MB.name}/assignments/00000000-0000-4000-8000-000000000000`,
      },
    ];

    it('answers 400 naming iccid for a malformed ICCID on every eSIM route', async () => {
      const valid = unknownIccid();
      const wrongDigit = valid.slice(0, -1) + String((Number(valid.slice(-1)) + 1) % 10);
      for (const bad of [
        '89ABCDEFGHIJKLMNOPQ',
        '8988000000000000',
        valid + '0',
        wrongDigit,
        '1' + valid.slice(1),
      ]) {
        for (const route of routes(bad)) {
          const res = await t.request(org.apiKey, route);
          assert.equal(res.statusCode, 400, `${route.method} ${route.url}: ${res.body}`);
          assert.match(res.json().message, /iccid/);
        }
      }
    });

    it('answers 404 with the same message for an unknown ICCID and another organisation\u2019s', async () => {
      const unknown = unknownIccid();
      for (const [index, route] of routes(unknown).entries()) {
        const missing = await t.request(org.apiKey, route);
        assert.equal(missing.statusCode, 404, `${route.method} ${route.url}: ${missing.body}`);
        const theirs = routes(iccid)[index];
        assert.ok(theirs);
        const foreign = await t.request(other.apiKey, theirs);
        assert.equal(foreign.statusCode, 404, `${theirs.method} ${theirs.url}: ${foreign.body}`);
        assert.equal(
          foreign.json().message,
          missing.json().message.replace(unknown, iccid),
          'same message for another organisation\u2019s eSIM',
        );
      }
    });

    it('refuses a missing API key', async () => {
      const res = await t.app.inject({ method: 'GET', url: `/v2.1/esims/${iccid}` });
      assert.equal(res.statusCode, 403);
    });
  });
}
