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
  use,
} from '../../../../test/esim-fixtures.js';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';

for (const kind of DATABASES) {
  describe(`revoking a bundle assignment [${kind}]`, () => {
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

    const inventoryUnits = async (name: string): Promise<number> => {
      const body = (await getJson(t, org, '/v2.1/inventory')) as {
        bundles: { name: string; available: { remaining: number }[] }[];
      };
      const bundle = body.bundles.find((b) => b.name === name);
      return bundle?.available.reduce((n, b) => n + b.remaining, 0) ?? 0;
    };
    const deprecated = (iccid: string, id: string, type?: string) =>
      `/v2.1/esims/${iccid}/bundles/${FR_1MB.name}/applications/${id}${type === undefined ? '' : `?type=${type}`}`;

    it('validate reports the outcome and changes nothing; transaction revokes and refunds', async () => {
      const { iccids } = await buy(t, org, FR_1MB.name);
      const iccid = iccids[0] ?? '';
      const [row] = await assignmentsOf(t, org, iccid);
      const id = row?.assignment.id ?? '';
      const historyBefore = await getJson(t, org, `/v2.1/esims/${iccid}/history`);

      const check = await t.request(org.apiKey, {
        method: 'DELETE',
        url: deprecated(iccid, id, 'validate'),
      });
      assert.equal(check.statusCode, 200, check.body);
      assert.equal(check.headers['deprecation'], 'true');
      assert.match(
        String(check.headers['link']),
        new RegExp(
          `/v2\\.1/esims/${iccid}/bundles/${FR_1MB.name}/assignments/${id}>; rel="successor-version"`,
        ),
      );
      assert.deepEqual(check.json(), {
        status: 'validated',
        assignmentId: id,
        bundle: FR_1MB.name,
        previousState: 'Queued',
        bundleState: 'Queued',
        refundToInventory: true,
      });
      assert.equal((await assignmentsOf(t, org, iccid))[0]?.assignment.bundleState, 'Queued');
      assert.deepEqual(await getJson(t, org, `/v2.1/esims/${iccid}/history`), historyBefore);
      assert.equal(await inventoryUnits(FR_1MB.name), 0);

      const foreign = await t.request(other.apiKey, {
        method: 'DELETE',
        url: deprecated(iccid, id),
      });
      assert.equal(foreign.statusCode, 404);

      const done = await t.request(org.apiKey, { method: 'DELETE', url: deprecated(iccid, id) });
      assert.equal(done.statusCode, 200, done.body);
      assert.equal(done.headers['deprecation'], 'true');
      assert.equal(done.json().status, 'revoked');
      assert.equal(done.json().bundleState, 'Revoked');
      assert.equal(await inventoryUnits(FR_1MB.name), 1);

      // Revoked is final.
      const again = await t.request(org.apiKey, { method: 'DELETE', url: deprecated(iccid, id) });
      assert.equal(again.statusCode, 400);
      assert.equal(again.headers['deprecation'], 'true');
      assert.match(again.json().message, /Revoked/);
    });

    it('answers 404 for an unknown assignment or the wrong bundle name, with or without validate', async () => {
      const { iccids } = await buy(t, org, FR_1MB.name);
      const iccid = iccids[0] ?? '';
      const id = (await assignmentsOf(t, org, iccid))[0]?.assignment.id ?? '';
      for (const type of ['transaction', 'validate', undefined]) {
        const res = await t.request(org.apiKey, {
          method: 'DELETE',
          url: deprecated(iccid, '3b8e0a8e-0000-4000-8000-000000000000', type),
        });
        assert.equal(res.statusCode, 404, res.body);
        assert.equal(res.headers['deprecation'], 'true');
      }
      const wrongName = await t.request(org.apiKey, {
        method: 'DELETE',
        url: `/v2.1/esims/${iccid}/bundles/esim_test_2MB_7D_FR_V2/assignments/${id}`,
      });
      assert.equal(wrongName.statusCode, 404);
      const badType = await t.request(org.apiKey, {
        method: 'DELETE',
        url: deprecated(iccid, id, 'maybe'),
      });
      assert.equal(badType.statusCode, 400);
      assert.equal((await assignmentsOf(t, org, iccid))[0]?.assignment.bundleState, 'Queued');
    });

    it('revokes an Active assignment without refund and refuses a Depleted one', async () => {
      const { iccids } = await buy(t, org, FR_1MB.name, { quantity: 2 });
      const [active = '', depleted = ''] = iccids;
      await installAndAttach(t, active);
      await installAndAttach(t, depleted);
      await use(t, active, 1000);
      await use(t, depleted, MB);
      const activeId = (await assignmentsOf(t, org, active))[0]?.assignment.id ?? '';
      const depletedId = (await assignmentsOf(t, org, depleted))[0]?.assignment.id ?? '';
      const before = await inventoryUnits(FR_1MB.name);

      const plan = await t.request(org.apiKey, {
        method: 'DELETE',
        url: `/v2.1/esims/${active}/bundles/${FR_1MB.name}/assignments/${activeId}?type=validate`,
      });
      assert.equal(plan.json().refundToInventory, false);
      assert.equal(plan.headers['deprecation'], undefined);
      const res = await t.request(org.apiKey, {
        method: 'DELETE',
        url: `/v2.1/esims/${active}/bundles/${FR_1MB.name}/assignments/${activeId}`,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().previousState, 'Active');
      assert.equal(res.json().refundToInventory, false);
      assert.equal(await inventoryUnits(FR_1MB.name), before);
      assert.equal((await use(t, active, 10))['consumedBytes'], 0);

      for (const type of ['validate', 'transaction']) {
        const refused = await t.request(org.apiKey, {
          method: 'DELETE',
          url: `/v2.1/esims/${depleted}/bundles/${FR_1MB.name}/assignments/${depletedId}?type=${type}`,
        });
        assert.equal(refused.statusCode, 400);
        assert.match(refused.json().message, /Depleted/);
      }
      assert.equal((await assignmentsOf(t, org, depleted))[0]?.assignment.bundleState, 'Depleted');
    });
  });
}
