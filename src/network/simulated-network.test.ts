import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  FR_1MB,
  MB,
  assignmentsOf,
  buy,
  getJson,
  installAndAttach,
  seedTestBundles,
} from '../../test/esim-fixtures.js';
import { DATABASES, startTestApp } from '../../test/harness.js';
import type { TestApp, TestOrg } from '../../test/harness.js';
import type { NetworkEvent } from '../domain/esims/lifecycle/network-events.js';

for (const kind of DATABASES) {
  describe(`simulated network under concurrent data use [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    const events: NetworkEvent[] = [];

    before(async () => {
      t = await startTestApp(kind);
      // Observe what the network tells the callbacks side, in the same transactions.
      const sink = t.deps.networkEvents;
      Object.assign(t.deps, {
        networkEvents: {
          record: async (trx: never, event: NetworkEvent, at: Date) => {
            events.push(event);
            await sink.record(trx, event, at);
          },
        },
      });
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000 });
    });
    after(() => t.close());

    it('never serves more than a bundle holds, activates and depletes it exactly once', async () => {
      const { iccids } = await buy(t, org, FR_1MB.name, { iccids: undefined, quantity: 1 });
      const iccid = iccids[0] ?? '';
      await buy(t, org, FR_1MB.name, { iccids: [iccid] });
      await installAndAttach(t, iccid, 'FR');
      events.length = 0;

      const reports = await Promise.all(
        Array.from({ length: 30 }, () =>
          t.app.inject({
            method: 'POST',
            url: `/_sim/esims/${iccid}/usage`,
            payload: { bytes: 50_000 },
          }),
        ),
      );
      for (const r of reports) assert.equal(r.statusCode, 200, r.body);
      const consumed = reports.reduce((n, r) => n + Number(r.json().consumedBytes), 0);
      // 1.5 MB asked of two 1 MB bundles: the first is used up, the second takes over.
      assert.equal(consumed, 1_500_000);
      const rows = await assignmentsOf(t, org, iccid);
      assert.deepEqual(
        rows.map((r) => [r.assignment.bundleState, r.assignment.usedQuantity]),
        [
          ['Depleted', MB],
          ['Active', 500_000],
        ],
      );
      const history = (await getJson(t, org, `/v2.1/esims/${iccid}/history`)) as {
        name: string;
      }[];
      assert.equal(history.filter((h) => h.name === 'Bundle Activated').length, 2);
      assert.equal(history.filter((h) => h.name === 'Bundle Depleted').length, 1);

      const usage = events.filter((e) => e.type === 'usage');
      assert.equal(usage.length, 30);
      assert.equal(usage.filter((e) => e.type === 'usage' && e.firstUse).length, 1);
      const last = usage.at(-1);
      assert.ok(last?.type === 'usage');
      assert.equal(last.assignment.bundleName, FR_1MB.name);
      assert.equal(last.assignment.description, FR_1MB.description);
    });

    it('reports attach events with the previous country and the bundle in line', async () => {
      const { iccids } = await buy(t, org, FR_1MB.name);
      const iccid = iccids[0] ?? '';
      events.length = 0;
      await installAndAttach(t, iccid, 'FR');
      await installAndAttach(t, iccid, 'DE');
      const attaches = events.filter((e) => e.type === 'attach');
      assert.equal(attaches.length, 2);
      const [first, second] = attaches;
      assert.ok(first?.type === 'attach' && second?.type === 'attach');
      assert.equal(first.firstAttachment, true);
      assert.equal(first.previousCountry, null);
      assert.equal(first.assignment?.state, 'Queued');
      assert.equal(second.firstAttachment, false);
      assert.equal(second.previousCountry, 'FR');
      assert.equal(second.country, 'DE');
    });
  });
}
