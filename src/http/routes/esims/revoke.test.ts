import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  FR_1MB,
  MB,
  assignmentsOf,
  buy,
  getJson,
  installAndAttach,
  inventoryUnits,
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

    const units = (name: string): Promise<number> => inventoryUnits(t, org, name);
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
      assert.equal(await units(FR_1MB.name), 0);

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
      assert.equal(await units(FR_1MB.name), 1);

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
      const before = await units(FR_1MB.name);

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
      assert.equal(await units(FR_1MB.name), before);
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

  describe(`refunds into inventory when the purchase batch has lapsed [${kind}]`, () => {
    const DAY = 86_400;
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      t = await startTestApp(kind, { inventoryValidityDays: 30 });
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000 });
    });
    after(() => t.close());

    type Batch = { id: number; total: number; remaining: number; expiry: string };
    const batches = async (): Promise<Batch[]> => {
      const body = (await getJson(t, org, '/v2.1/inventory')) as {
        bundles: { name: string; available: Batch[] }[];
      };
      return body.bundles.find((b) => b.name === FR_1MB.name)?.available ?? [];
    };
    const apply = async (): Promise<{ iccid: string; assignmentId: string }> => {
      const res = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/esims/apply',
        payload: { name: FR_1MB.name },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().esims[0];
    };
    const revoke = async (a: { iccid: string; assignmentId: string }) => {
      const res = await t.request(org.apiKey, {
        method: 'DELETE',
        url: `/v2.1/esims/${a.iccid}/bundles/${FR_1MB.name}/assignments/${a.assignmentId}`,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().refundToInventory, true);
    };
    const validUntil = async (a: { iccid: string }): Promise<string> => {
      const body = (await getJson(t, org, `/v2.1/esims/${a.iccid}/bundles`)) as {
        bundles: { assignments: { validUntil: string }[] }[];
      };
      return body.bundles[0]?.assignments[0]?.validUntil ?? '';
    };

    it('gives the unit back with the validity it had on the eSIM, before and after the lapse', async () => {
      await buy(t, org, FR_1MB.name, { assign: false, quantity: 2 });
      const [bought] = await batches();
      assert.ok(bought);
      t.clock.advance(20 * DAY);
      const first = await apply();
      const second = await apply();
      assert.deepEqual(await batches(), []);

      // Revoked while its batch is still valid: the unit keeps its own, longer validity.
      await revoke(first);
      const firstUntil = await validUntil(first);
      assert.ok(firstUntil > bought.expiry);
      assert.deepEqual(
        (await batches()).map((b) => [b.total, b.remaining, b.expiry]),
        [[1, 1, firstUntil]],
      );

      // The purchase batch lapses at day 30; a unit revoked after that is not lost with it.
      t.clock.advance(15 * DAY);
      assert.ok(t.clock.now().toISOString() > bought.expiry);
      await revoke(second);
      const secondUntil = await validUntil(second);
      assert.deepEqual(
        (await batches()).map((b) => [b.total, b.remaining, b.expiry]),
        [
          [1, 1, firstUntil],
          [1, 1, secondUntil],
        ],
      );
      assert.ok(!(await batches()).some((b) => b.id === bought.id));

      // Both refunded units can be applied again; then inventory is empty.
      await apply();
      await apply();
      assert.deepEqual(await batches(), []);
      const third = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/esims/apply',
        payload: { name: FR_1MB.name },
      });
      assert.equal(third.statusCode, 400, third.body);
    });

    it('refunds a unit once when the same assignment is revoked concurrently', async () => {
      await buy(t, org, FR_1MB.name, { assign: false, quantity: 1 });
      const applied = await apply();
      const url = `/v2.1/esims/${applied.iccid}/bundles/${FR_1MB.name}/assignments/${applied.assignmentId}`;
      const results = await Promise.all(
        Array.from({ length: 8 }, () => t.request(org.apiKey, { method: 'DELETE', url })),
      );
      const statuses = results.map((r) => r.statusCode);
      assert.equal(statuses.filter((s) => s === 200).length, 1, statuses.join(','));
      for (const r of results.filter((x) => x.statusCode !== 200)) {
        assert.ok([400, 409].includes(r.statusCode), r.body);
      }
      assert.deepEqual(
        (await batches()).map((b) => b.remaining),
        [1],
      );
    });
  });
}
