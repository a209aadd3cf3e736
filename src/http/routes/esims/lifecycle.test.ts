import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  FR_1MB,
  FR_2MB,
  MB,
  US_UNLIMITED,
  assignmentsOf,
  buy,
  getJson,
  installAndAttach,
  inventoryUnits,
  seedTestBundles,
  sim,
  use,
} from '../../../../test/esim-fixtures.js';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';

const DAY = 86_400;

interface HistoryEntry {
  name: string;
  bundle: string;
  date: string;
  bundleState: string;
  alertType: string;
}

for (const kind of DATABASES) {
  describe(`bundle lifecycle through the API [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 1_000_000 });
    });
    after(() => t.close());

    const history = async (iccid: string): Promise<HistoryEntry[]> =>
      (await getJson(t, org, `/v2.1/esims/${iccid}/history`)) as HistoryEntry[];
    const stateOf = async (iccid: string, id: string): Promise<string | undefined> =>
      (await assignmentsOf(t, org, iccid)).find((a) => a.assignment.id === id)?.assignment
        .bundleState;

    it('buys, queues, activates, depletes, hands over, expires and revokes', async () => {
      const first = await buy(t, org, FR_1MB.name);
      const iccid = first.iccids[0] ?? '';
      assert.match(iccid, /^89\d{17}$/);
      await buy(t, org, FR_2MB.name, { iccids: [iccid] });
      const third = await buy(t, org, FR_1MB.name, { iccids: [iccid] });

      // Processing then Queued, both in history, newest first.
      const start = await history(iccid);
      assert.deepEqual(
        start.slice(-2).map((h) => [h.name, h.bundle, h.bundleState]),
        [
          ['Bundle Queued', FR_1MB.name, 'Queued'],
          ['Bundle Applied', FR_1MB.name, 'Processing'],
        ],
      );
      assert.equal(start[0]?.alertType, '');
      let rows = await assignmentsOf(t, org, iccid);
      assert.deepEqual(
        rows.map((r) => [r.name, r.assignment.bundleState, r.assignment.remainingQuantity]),
        [
          [FR_1MB.name, 'Queued', MB],
          [FR_1MB.name, 'Queued', MB],
          [FR_2MB.name, 'Queued', 2 * MB],
        ],
      );
      const [a1, a3] = rows.filter((r) => r.name === FR_1MB.name).map((r) => r.assignment);
      const a2 = rows.find((r) => r.name === FR_2MB.name)?.assignment;
      assert.ok(a1 && a2 && a3);
      assert.equal(a1.reference, first.orderReference);
      assert.equal(a3.reference, third.orderReference);

      // Never seen on a network yet.
      const unseen = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/esims/${iccid}/location`,
      });
      assert.equal(unseen.statusCode, 404);
      assert.match(unseen.json().message, /not been seen on a network/);
      await sim(t, 'POST', `/_sim/esims/${iccid}/usage`, { bytes: 10 }, 400);

      // Installed and attached in a country no bundle covers: nothing is served.
      await installAndAttach(t, iccid, 'US');
      const esim = (await getJson(t, org, `/v2.1/esims/${iccid}`)) as Record<string, string>;
      assert.equal(esim['profileStatus'], 'Installed');
      assert.notEqual(esim['firstInstalledDateTime'], '');
      const uncovered = await use(t, iccid, 1000);
      assert.equal(uncovered['consumedBytes'], 0);
      assert.match(String(uncovered['reason']), /no bundle covering US/);

      // Attach to Orange France by MCC/MNC: the location shows it.
      await sim(t, 'POST', `/_sim/esims/${iccid}/attach`, { mcc: '208', mnc: '01' });
      const location = (await getJson(t, org, `/v2.1/esims/${iccid}/location`)) as Record<
        string,
        string
      >;
      assert.equal(location['mobileNetworkCode'], '20801');
      assert.equal(location['networkName'], 'Orange');
      assert.equal(location['country'], 'FR');
      assert.equal(location['lastSeen'], new Date(location['lastSeen'] ?? '').toISOString());

      // First use activates the first queued bundle.
      const used = await use(t, iccid, 400_000);
      assert.equal(used['consumedBytes'], 400_000);
      assert.deepEqual(used['transitions'], ['Queued -> Active']);
      rows = await assignmentsOf(t, org, iccid);
      const active = rows.find((r) => r.assignment.id === a1.id)?.assignment;
      assert.equal(active?.bundleState, 'Active');
      assert.equal(active?.remainingQuantity, 600_000);
      assert.equal(active?.usedQuantity, 400_000);
      assert.ok(active?.startTime);
      assert.equal(
        Date.parse(active?.endTime ?? '') - Date.parse(active?.startTime ?? ''),
        30 * DAY * 1000,
      );

      // Using the rest depletes it; what it did not have is not served.
      const rest = await use(t, iccid, 700_000);
      assert.equal(rest['consumedBytes'], 600_000);
      assert.equal(rest['unservedBytes'], 100_000);
      assert.equal(await stateOf(iccid, a1.id), 'Depleted');

      // The next use goes to the next queued bundle covering FR, in the order they were bought.
      const next = await use(t, iccid, 100);
      assert.equal((next['assignment'] as { id: string }).id, a2.id);
      assert.equal(await stateOf(iccid, a2.id), 'Active');
      assert.equal(await stateOf(iccid, a3.id), 'Queued');

      // Revoking the unused third bundle refunds it to inventory.
      const revoke = await t.request(org.apiKey, {
        method: 'DELETE',
        url: `/v2.1/esims/${iccid}/bundles/${FR_1MB.name}/assignments/${a3.id}`,
      });
      assert.equal(revoke.statusCode, 200, revoke.body);
      assert.equal(revoke.json().refundToInventory, true);
      assert.equal(await stateOf(iccid, a3.id), 'Revoked');
      assert.equal(await inventoryUnits(t, org, FR_1MB.name), 1);

      // 30 days on, both started bundles have expired.
      const advanced = await sim(t, 'POST', '/_sim/clock/advance', { seconds: 30 * DAY + 1 });
      assert.equal(advanced['expired'], 2);
      assert.equal(await stateOf(iccid, a1.id), 'Expired');
      assert.equal(await stateOf(iccid, a2.id), 'Expired');
      assert.equal(await stateOf(iccid, a3.id), 'Revoked');
      const afterExpiry = await use(t, iccid, 10);
      assert.equal(afterExpiry['consumedBytes'], 0);

      const names = (await history(iccid)).map((h) => `${h.name}|${h.bundleState}`);
      for (const expected of [
        'Bundle Activated|Active',
        'Bundle Depleted|Depleted',
        'Bundle Revoked|Revoked',
        'Bundle Expired|Expired',
        'eSIM Installed|Queued',
      ]) {
        assert.ok(names.includes(expected), `history lacks ${expected}: ${names.join(', ')}`);
      }
      const dates = (await history(iccid)).map((h) => h.date);
      assert.deepEqual(dates, [...dates].sort().reverse(), 'history is newest first');
    });

    it('keeps a bundle Processing under slow processing while the eSIM installs and attaches', async () => {
      await sim(t, 'POST', '/_sim/processing', { delaySeconds: 600 });
      try {
        const { iccids } = await buy(t, org, FR_1MB.name);
        const iccid = iccids[0] ?? '';
        const [row] = await assignmentsOf(t, org, iccid);
        assert.equal(row?.assignment.bundleState, 'Processing');
        await installAndAttach(t, iccid, 'FR');
        const waiting = await use(t, iccid, 1000);
        assert.equal(waiting['consumedBytes'], 0);
        assert.match(String(waiting['reason']), /still processing/);

        await sim(t, 'POST', '/_sim/clock/advance', { seconds: 590 });
        assert.equal((await assignmentsOf(t, org, iccid))[0]?.assignment.bundleState, 'Processing');
        const done = await sim(t, 'POST', '/_sim/clock/advance', { seconds: 15 });
        assert.ok(Number(done['provisioned']) >= 1);
        assert.equal((await assignmentsOf(t, org, iccid))[0]?.assignment.bundleState, 'Queued');
        assert.equal((await use(t, iccid, 1000))['consumedBytes'], 1000);
        assert.deepEqual(
          (await history(iccid)).map((h) => `${h.name}|${h.bundleState}`),
          [
            'Bundle Activated|Active',
            'Bundle Queued|Queued',
            'eSIM Installed|Processing',
            'Bundle Applied|Processing',
          ],
        );
      } finally {
        await sim(t, 'DELETE', '/_sim/processing');
      }
    });

    it('expires a queued bundle that never starts within its validity window', async () => {
      const { iccids } = await buy(t, org, FR_2MB.name);
      const iccid = iccids[0] ?? '';
      await sim(t, 'POST', '/_sim/clock/advance', {
        seconds: t.config.inventoryValidityDays * DAY,
      });
      const [row] = await assignmentsOf(t, org, iccid);
      assert.equal(row?.assignment.bundleState, 'Expired');
      assert.equal(row?.assignment.startTime, '');
    });

    it('serves unlimited bundles without depleting them, until their duration ends', async () => {
      const { iccids } = await buy(t, org, US_UNLIMITED.name);
      const iccid = iccids[0] ?? '';
      await installAndAttach(t, iccid, 'US');
      const used = await use(t, iccid, 50_000 * MB);
      assert.equal(used['consumedBytes'], 50_000 * MB);
      const [row] = await assignmentsOf(t, org, iccid);
      assert.equal(row?.assignment.bundleState, 'Active');
      // Unlimited: no quantities (-1), but the bytes used are reported (docs/esims.md).
      assert.equal(row?.assignment.initialQuantity, -1);
      assert.equal(row?.assignment.remainingQuantity, -1);
      assert.equal(row?.assignment.usedQuantity, 50_000 * MB);
      await sim(t, 'POST', '/_sim/clock/advance', { seconds: DAY });
      assert.equal((await assignmentsOf(t, org, iccid))[0]?.assignment.bundleState, 'Expired');
    });
  });
}
