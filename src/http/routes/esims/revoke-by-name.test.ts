import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  FR_1MB,
  FR_2MB,
  MB,
  assignmentsOf,
  buy,
  installAndAttach,
  inventoryUnits,
  seedTestBundles,
  use,
} from '../../../../test/esim-fixtures.js';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';

for (const kind of DATABASES) {
  describe(`DELETE /v2.1/esims/{iccid}/bundles/{name} (revoke by name) [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let other: TestOrg;

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000 });
      other = await t.createOrg({ balance: 100_000 });
    });
    after(() => t.close());

    const revoke = (who: TestOrg, iccid: string, name: string, query = '') =>
      t.request(who.apiKey, {
        method: 'DELETE',
        url: `/v2.1/esims/${iccid}/bundles/${name}${query}`,
      });
    const states = async (iccid: string) =>
      (await assignmentsOf(t, org, iccid))
        .filter((a) => a.name === FR_1MB.name)
        .map((a) => [a.assignment.id, a.assignment.bundleState]);

    it('revokes the oldest unused assignment of the bundle, one per call, then refuses', async () => {
      const { iccids } = await buy(t, org, FR_1MB.name);
      const iccid = iccids[0] ?? '';
      await buy(t, org, FR_1MB.name, { iccids: [iccid] });
      await buy(t, org, FR_1MB.name, { iccids: [iccid] });
      await installAndAttach(t, iccid, 'FR');
      await use(t, iccid, MB / 10); // the first one starts
      const rows = await assignmentsOf(t, org, iccid);
      const [first, second, third] = rows.map((r) => r.assignment);
      assert.ok(first !== undefined && second !== undefined && third !== undefined);
      assert.deepEqual(
        rows.map((r) => r.assignment.bundleState),
        ['Active', 'Queued', 'Queued'],
      );
      // The live assignment fields.
      for (const r of rows) {
        const a = r.assignment as unknown as Record<string, unknown>;
        assert.equal(a['callTypeGroup'], 'data');
        assert.equal(a['assignmentReference'], a['reference']);
      }
      const units = await inventoryUnits(t, org, FR_1MB.name);

      const check = await revoke(org, iccid, FR_1MB.name, '?type=validate');
      assert.equal(check.statusCode, 200, check.body);
      assert.deepEqual(check.json(), {
        status: 'validated',
        assignmentId: second.id,
        bundle: FR_1MB.name,
        previousState: 'Queued',
        bundleState: 'Queued',
        refundToInventory: true,
      });
      assert.equal(check.headers['deprecation'], undefined);

      const done = await revoke(org, iccid, FR_1MB.name);
      assert.equal(done.statusCode, 200, done.body);
      assert.equal(done.json().assignmentId, second.id);
      assert.equal(done.json().bundleState, 'Revoked');
      assert.deepEqual(await states(iccid), [
        [first.id, 'Active'],
        [second.id, 'Revoked'],
        [third.id, 'Queued'],
      ]);
      assert.equal(await inventoryUnits(t, org, FR_1MB.name), units + 1);

      assert.equal((await revoke(org, iccid, FR_1MB.name)).json().assignmentId, third.id);
      const none = await revoke(org, iccid, FR_1MB.name);
      assert.equal(none.statusCode, 400);
      assert.equal(none.json().code, 'no_unused_assignment');
      assert.match(none.json().message, /assignments\/\{assignmentId\}/);
      assert.equal(await inventoryUnits(t, org, FR_1MB.name), units + 2);
      assert.equal((await states(iccid))[0]?.[1], 'Active');
    });

    it('concurrent revokes by name each take a different unused assignment', async () => {
      const { iccids } = await buy(t, org, FR_1MB.name);
      const iccid = iccids[0] ?? '';
      await buy(t, org, FR_1MB.name, { iccids: [iccid, iccid] });
      const results = await Promise.all(
        Array.from({ length: 4 }, () => revoke(org, iccid, FR_1MB.name)),
      );
      const ok = results.filter((r) => r.statusCode === 200);
      assert.equal(ok.length, 3, results.map((r) => `${r.statusCode} ${r.body}`).join('\n'));
      assert.equal(new Set(ok.map((r) => r.json().assignmentId)).size, 3);
      const refused = results.find((r) => r.statusCode !== 200);
      assert.equal(refused?.statusCode, 400);
      assert.equal(refused?.json().code, 'no_unused_assignment');
      assert.ok((await states(iccid)).every(([, state]) => state === 'Revoked'));
    });

    it('is a 404 for a bundle never on the eSIM and for another organisation’s eSIM', async () => {
      const { iccids } = await buy(t, org, FR_1MB.name);
      const iccid = iccids[0] ?? '';
      const never = await revoke(org, iccid, FR_2MB.name);
      assert.equal(never.statusCode, 404);
      assert.match(never.json().message, /was never assigned/);
      const foreign = await revoke(other, iccid, FR_1MB.name);
      assert.equal(foreign.statusCode, 404);
      assert.equal(foreign.json().message, `eSIM ${iccid} not found`);
      const malformed = await revoke(org, '12345', FR_1MB.name);
      assert.equal(malformed.statusCode, 400);
      const badType = await revoke(org, iccid, FR_1MB.name, '?type=maybe');
      assert.equal(badType.statusCode, 400);
      // A DELETE takes the key in the header only.
      const queryKey = await t.request(undefined, {
        method: 'DELETE',
        url: `/v2.1/esims/${iccid}/bundles/${FR_1MB.name}?api_key=${org.apiKey}`,
      });
      assert.equal(queryKey.statusCode, 403);
      assert.equal((await states(iccid))[0]?.[1], 'Queued');
    });
  });
}
