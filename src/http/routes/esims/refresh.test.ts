import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  FR_1MB,
  buy,
  getJson,
  installAndAttach,
  seedTestBundles,
} from '../../../../test/esim-fixtures.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';
import { DATABASES } from '../../../../test/harness.js';
import type { FileBackedApp } from '../../../../test/fixtures/orders.js';
import { runCli, startFileBackedApp } from '../../../../test/fixtures/orders.js';

interface Location {
  mobileNetworkCode: string;
  networkName: string;
  networkBrandName: string;
  country: string;
  lastSeen: string;
}

for (const kind of DATABASES) {
  describe(`GET /v2.1/esims/{iccid}/refresh [${kind}]`, () => {
    let f: FileBackedApp;
    let t: TestApp;
    let org: TestOrg;
    let other: TestOrg;

    before(async () => {
      f = await startFileBackedApp(kind);
      t = f.t;
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000 });
      other = await t.createOrg({ balance: 100_000 });
    });
    after(() => f.close());

    const refresh = (who: TestOrg, iccid: string) =>
      t.request(who.apiKey, { method: 'GET', url: `/v2.1/esims/${iccid}/refresh` });
    const location = async (iccid: string) =>
      (await getJson(t, org, `/v2.1/esims/${iccid}/location`)) as Location;
    const history = async (iccid: string) =>
      (await getJson(t, org, `/v2.1/esims/${iccid}/history`)) as { name: string }[];

    it('re-registers the eSIM on its network, moves lastSeen and records "eSIM Refreshed"', async () => {
      const { iccids } = await buy(t, org, FR_1MB.name);
      const iccid = iccids[0] ?? '';
      await installAndAttach(t, iccid, 'FR');
      const seen = await location(iccid);
      assert.equal(seen.country, 'FR');
      assert.ok(seen.networkBrandName !== '');
      assert.equal(seen.networkBrandName, seen.networkName);

      t.clock.advance(600);
      const res = await refresh(org, iccid);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { status: 'Successfully refreshed SIM' });
      const now = await location(iccid);
      assert.equal(now.mobileNetworkCode, seen.mobileNetworkCode);
      assert.ok(now.lastSeen > seen.lastSeen, `${now.lastSeen} after ${seen.lastSeen}`);
      const [entry] = (await history(iccid)) as unknown as {
        name: string;
        bundle: string;
        bundleState: string;
      }[];
      // An eSIM event names the bundle in use or next in line.
      assert.deepEqual(
        [entry?.name, entry?.bundle, entry?.bundleState],
        ['eSIM Refreshed', FR_1MB.name, 'Queued'],
      );
      const details = (await getJson(t, org, `/v2.1/esims/${iccid}`)) as { lastAction: string };
      assert.equal(details.lastAction, 'eSIM Refreshed');
    });

    it('refreshes an eSIM never seen on a network, which stays unseen', async () => {
      const { iccids } = await buy(t, org, FR_1MB.name);
      const iccid = iccids[0] ?? '';
      const res = await t.request(undefined, {
        method: 'GET',
        url: `/v2.1/esims/${iccid}/refresh?api_key=${org.apiKey}`,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((await history(iccid))[0]?.name, 'eSIM Refreshed');
      const where = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/esims/${iccid}/location`,
      });
      assert.equal(where.statusCode, 404);
    });

    it('refuses a malformed ICCID and another organisation’s eSIM', async () => {
      const { iccids } = await buy(t, org, FR_1MB.name);
      const iccid = iccids[0] ?? '';
      const before = await history(iccid);
      const malformed = await refresh(org, '89123');
      assert.equal(malformed.statusCode, 400);
      assert.match(malformed.json().message, /is not an ICCID/);
      const foreign = await refresh(other, iccid);
      assert.equal(foreign.statusCode, 404);
      assert.equal(foreign.json().message, `eSIM ${iccid} not found`);
      assert.equal((await refresh({ id: '', apiKey: 'esim_wrong' }, iccid)).statusCode, 403);
      assert.deepEqual(await history(iccid), before);
    });

    it('esim esims refresh does the same from the command line', async () => {
      const { iccids } = await buy(t, org, FR_1MB.name);
      const iccid = iccids[0] ?? '';
      const done = await runCli(['esims', 'refresh', iccid], f.env);
      assert.equal(done.code, 0, done.err);
      assert.equal((await history(iccid))[0]?.name, 'eSIM Refreshed');
      const missing = await runCli(['esims', 'refresh', '8944000000000000019'], f.env);
      assert.equal(missing.code, 1);
    });
  });
}
