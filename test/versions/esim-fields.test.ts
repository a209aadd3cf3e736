import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  FR_1MB,
  MB,
  US_UNLIMITED,
  buy,
  getJson,
  installAndAttach,
  seedTestBundles,
  sim,
  use,
} from '../esim-fixtures.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp } from '../harness.js';

// v2.5's eSIM detail (`msisdn`, `profileName`, Android and Apple install links) and bundle
// assignments (`allowances[]`); earlier versions answer as before.

const APPLE = 'https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=';
const ANDROID = 'https://esimsetup.android.com/esim_qrcode_provisioning?carddata=';

interface Detail {
  iccid: string;
  matchingId: string;
  smdpAddress: string;
  msisdn?: string;
  profileName?: string;
  brandingId?: string;
  state?: string;
  appleInstallUrl?: string;
  androidInstallUrl?: string;
}
interface Allowance {
  type: string;
  service: string;
  description: string;
  initialAmount: number;
  remainingAmount: number;
  unit: string;
  unlimited: boolean;
}
interface Bundles {
  bundles: { name: string; assignments: { allowances?: Allowance[] }[] }[];
}

for (const kind of DATABASES) {
  describe(`v2.5 eSIM detail and assignment fields [${kind}]`, () => {
    let t: TestApp;

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
    });
    after(() => t.close());

    it('msisdn (empty until numbered), profileName and brandingId on v2.5; v2.1 unchanged', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const [iccid = ''] = (await buy(t, org, FR_1MB.name)).iccids;
      const before = (await getJson(t, org, `/v2.5/esims/${iccid}`)) as Detail;
      assert.equal(before.msisdn, '');
      assert.equal(before.profileName, 'default');
      assert.equal(before.brandingId, '(default)');
      assert.equal(before.state, 'active');
      assert.equal(before.appleInstallUrl, undefined);
      assert.equal(before.androidInstallUrl, undefined);
      const numbered = await sim(t, 'POST', `/_sim/esims/${iccid}/msisdn`, { country: 'FR' });
      const after = (await getJson(t, org, `/v2.5/esims/${iccid}`)) as Detail;
      assert.equal(after.msisdn, numbered['msisdn']);
      assert.match(after.msisdn ?? '', /^33\d+$/);
      const v21 = (await getJson(t, org, `/v2.1/esims/${iccid}`)) as Record<string, unknown>;
      for (const field of ['msisdn', 'profileName', 'brandingId', 'state']) {
        assert.equal(field in v21, false, `v2.1 has no ${field}`);
      }
      const other = await t.createOrg({ balance: 0 });
      const theirs = await t.request(other.apiKey, { url: `/v2.5/esims/${iccid}` });
      assert.equal(theirs.statusCode, 404);
    });

    it('additionalFields: installUrl gives both links, each name its own; v2.1 knows only Apple', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const [iccid = ''] = (await buy(t, org, FR_1MB.name)).iccids;
      const url = (fields: string, v = '2.5') => `/v${v}/esims/${iccid}?additionalFields=${fields}`;
      const both = (await getJson(t, org, url('installUrl'))) as Detail;
      const code = encodeURIComponent(`LPA:1$${both.smdpAddress}$${both.matchingId}`);
      assert.equal(both.appleInstallUrl, APPLE + code);
      assert.equal(both.androidInstallUrl, ANDROID + code);
      const android = (await getJson(t, org, url('androidInstallUrl'))) as Detail;
      assert.equal(android.androidInstallUrl, ANDROID + code);
      assert.equal(android.appleInstallUrl, undefined);
      const apple = (await getJson(t, org, url('appleInstallUrl', '2.4'))) as Detail;
      assert.equal(apple.appleInstallUrl, APPLE + code);
      // Before v2.5 installUrl is a name the version does not know: ignored, as live does.
      for (const v of ['2.1', '2.4']) {
        const res = await t.request(org.apiKey, { url: url('installUrl', v) });
        assert.equal(res.statusCode, 200, `v${v}`);
        assert.equal(res.json<Detail>().appleInstallUrl, undefined, `v${v}`);
      }
    });

    it('allowances[] on v2.5 assignments follow the data left; none before v2.5', async () => {
      const org = await t.createOrg({ balance: 10_000 });
      const [iccid = ''] = (await buy(t, org, FR_1MB.name)).iccids;
      await installAndAttach(t, iccid, 'FR');
      await use(t, iccid, 300_000);
      const list = (await getJson(t, org, `/v2.5/esims/${iccid}/bundles`)) as Bundles;
      const one = (await getJson(
        t,
        org,
        `/v2.5/esims/${iccid}/bundles/${FR_1MB.name}`,
      )) as Bundles['bundles'][number];
      const expected: Allowance[] = [
        {
          type: 'DATA',
          service: 'STANDARD',
          description: 'Data',
          initialAmount: MB,
          remainingAmount: MB - 300_000,
          unit: 'BYTES',
          unlimited: false,
        },
      ];
      assert.deepEqual(list.bundles[0]?.assignments[0]?.allowances, expected);
      assert.deepEqual(one.assignments[0]?.allowances, expected);
      const v24 = (await getJson(t, org, `/v2.4/esims/${iccid}/bundles`)) as Bundles;
      assert.equal(v24.bundles[0]?.assignments[0]?.allowances, undefined);

      const [unlimited = ''] = (await buy(t, org, US_UNLIMITED.name)).iccids;
      const ul = (await getJson(t, org, `/v2.5/esims/${unlimited}/bundles`)) as Bundles;
      assert.deepEqual(ul.bundles[0]?.assignments[0]?.allowances?.[0], {
        type: 'DATA',
        service: 'STANDARD',
        description: 'Unlimited data',
        initialAmount: -1,
        remainingAmount: -1,
        unit: 'BYTES',
        unlimited: true,
      });
    });
  });
}
