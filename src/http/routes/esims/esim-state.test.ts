import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  FR_1MB,
  buy,
  installAndAttach,
  seedTestBundles,
  use,
} from '../../../../test/esim-fixtures.js';
import { DATABASES } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';
import type { FileBackedApp } from '../../../../test/fixtures/orders.js';
import { runCli, startFileBackedApp } from '../../../../test/fixtures/orders.js';

// v2.5's eSIM state through HTTP: suspend, unsuspend, the suspension read, delete, and `state`
// on the eSIM list and detail; v2.4's revoke with refundToBalance and offerId as a journaled
// movement. Another organisation's eSIM is a 404 everywhere.

for (const kind of DATABASES) {
  describe(`eSIM state and refunds to the balance, v2.4/v2.5 [${kind}]`, () => {
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

    const call = (
      method: 'GET' | 'POST' | 'DELETE',
      url: string,
      payload?: Record<string, unknown>,
      key = org.apiKey,
    ) => t.request(key, { method, url, ...(payload === undefined ? {} : { payload }) });

    it('suspends and unsuspends, answers the suspension, and shows state on v2.5 only', async () => {
      const [iccid = ''] = (await buy(t, org, FR_1MB.name)).iccids;
      await installAndAttach(t, iccid);
      const suspend = await call('POST', `/v2.5/esims/${iccid}/suspend`, { suspend: true });
      assert.equal(suspend.statusCode, 201, suspend.body);
      assert.deepEqual(suspend.json(), { status: 'eSIM suspended successfully' });
      assert.deepEqual((await call('GET', `/v2.5/esims/${iccid}/suspend`)).json(), {
        suspended: true,
      });
      const detail = (await call('GET', `/v2.5/esims/${iccid}`)).json();
      assert.equal(detail.state, 'suspended');
      assert.equal(detail.brandingId, '(default)');
      const listed = (await call('GET', '/v2.5/esims')).json().esims;
      assert.equal(listed.find((e: { iccid: string }) => e.iccid === iccid).state, 'suspended');
      // v2.1 keeps its shape: no state.
      assert.equal((await call('GET', `/v2.1/esims/${iccid}`)).json().state, undefined);
      assert.equal((await call('GET', '/v2.1/esims')).json().esims[0].state, undefined);
      assert.equal((await use(t, iccid, 1000))['consumedBytes'], 0);

      const resume = await call('POST', `/v2.5/esims/${iccid}/suspend`, { suspend: false });
      assert.equal(resume.statusCode, 201);
      assert.deepEqual(resume.json(), { status: 'eSIM unsuspended successfully' });
      assert.equal((await call('GET', `/v2.5/esims/${iccid}`)).json().state, 'active');
      assert.equal((await use(t, iccid, 1000))['consumedBytes'], 1000);

      // Not on the earlier versions.
      const v24 = await call('POST', `/v2.4/esims/${iccid}/suspend`, { suspend: true });
      assert.equal(v24.statusCode, 404);
      // Bad bodies name the field.
      const noBody = await call('POST', `/v2.5/esims/${iccid}/suspend`, {});
      assert.equal(noBody.statusCode, 400);
      assert.match(noBody.json().message, /suspend/);
      const notBool = await call('POST', `/v2.5/esims/${iccid}/suspend`, { suspend: 'maybe' });
      assert.equal(notBool.statusCode, 400);
    });

    it("another organisation's eSIM is a 404, a malformed ICCID a 400", async () => {
      const [iccid = ''] = (await buy(t, org, FR_1MB.name)).iccids;
      for (const [method, url, payload] of [
        ['POST', `/v2.5/esims/${iccid}/suspend`, { suspend: true }],
        ['GET', `/v2.5/esims/${iccid}/suspend`, undefined],
        ['DELETE', `/v2.5/esims/${iccid}`, undefined],
      ] as const) {
        const res = await call(method, url, payload, other.apiKey);
        assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
        assert.equal(res.json().message, `eSIM ${iccid} not found`);
      }
      assert.equal((await call('GET', `/v2.5/esims/${iccid}`)).json().state, 'active');
      const malformed = await call('DELETE', '/v2.5/esims/123');
      assert.equal(malformed.statusCode, 400);
    });

    it('deletes: every version loses it from the list; it reads as deactivated; 400 after', async () => {
      const bought = await buy(t, org, FR_1MB.name);
      const iccid = bought.iccids[0] ?? '';
      const deleted = await call('DELETE', `/v2.5/esims/${iccid}`);
      assert.equal(deleted.statusCode, 200, deleted.body);
      assert.deepEqual(deleted.json(), { status: 'eSIM deleted successfully' });
      for (const v of ['2.1', '2.2', '2.3', '2.4', '2.5']) {
        const list = (await call('GET', `/v${v}/esims?perPage=500`)).json();
        assert.ok(
          !list.esims.some((e: { iccid: string }) => e.iccid === iccid),
          `v${v} still lists it`,
        );
      }
      const detail = (await call('GET', `/v2.5/esims/${iccid}`)).json();
      assert.equal(detail.state, 'deactivated');
      assert.equal(detail.profileStatus, 'Deactivated');
      assert.equal((await call('GET', `/v2.1/esims/${iccid}`)).json().profileStatus, 'Deactivated');
      const again = await call('DELETE', `/v2.5/esims/${iccid}`);
      assert.equal(again.statusCode, 400);
      assert.equal(again.json().code, 'esim_deactivated');
      const suspend = await call('POST', `/v2.5/esims/${iccid}/suspend`, { suspend: true });
      assert.equal(suspend.statusCode, 400);
      const qr = await call('GET', `/v2.5/esims/qr/${bought.orderReference}`);
      assert.equal(qr.statusCode, 410, qr.body);
      const refresh = await call('GET', `/v2.5/esims/${iccid}/refresh`);
      assert.equal(refresh.statusCode, 400);
    });

    it('compatible: {message} on v2.2/v2.3, {compatible} on v2.4+, false once deleted', async () => {
      const [iccid = ''] = (await buy(t, org, FR_1MB.name)).iccids;
      const v22 = await call('GET', `/v2.2/esims/${iccid}/compatible/${FR_1MB.name}`);
      assert.equal(v22.statusCode, 200, v22.body);
      assert.deepEqual(v22.json(), {
        message: `eSIM ${iccid} is compatible with bundle ${FR_1MB.name}`,
      });
      for (const v of ['2.4', '2.5']) {
        const res = await call('GET', `/v${v}/esims/${iccid}/compatible/${FR_1MB.name}`);
        assert.deepEqual(res.json(), { compatible: true }, `v${v}`);
      }
      const unknown = await call('GET', `/v2.4/esims/${iccid}/compatible/no_such_bundle`);
      assert.deepEqual(unknown.json(), { compatible: false });
      assert.equal(
        (await call('GET', `/v2.1/esims/${iccid}/compatible/${FR_1MB.name}`)).statusCode,
        404,
      );
      const elsewhere = await call(
        'GET',
        `/v2.4/esims/${iccid}/compatible/${FR_1MB.name}`,
        undefined,
        other.apiKey,
      );
      assert.equal(elsewhere.statusCode, 404);
      assert.equal((await call('DELETE', `/v2.5/esims/${iccid}`)).statusCode, 200);
      const gone = await call('GET', `/v2.4/esims/${iccid}/compatible/${FR_1MB.name}`);
      assert.deepEqual(gone.json(), { compatible: false });
    });

    it('v2.4 revoke with refundToBalance journals the price back; verify passes', async () => {
      const [iccid = ''] = (await buy(t, org, FR_1MB.name, { quantity: 1 })).iccids;
      await call('POST', '/v2.1/orders', {
        type: 'transaction',
        assign: true,
        order: [{ type: 'bundle', item: FR_1MB.name, quantity: 1, iccids: [iccid] }],
      });
      const balance = async () =>
        (await call('GET', '/v2.1/organisation')).json().organisations[0].balance as number;
      const bundles = (await call('GET', `/v2.1/esims/${iccid}/bundles`)).json().bundles[0];
      const [first, second] = bundles.assignments as { id: string }[];
      assert.ok(first !== undefined && second !== undefined);
      const before = await balance();
      const validate = await call(
        'DELETE',
        `/v2.4/esims/${iccid}/bundles/${FR_1MB.name}?type=validate&refundToBalance=true&offerId=${second.id}`,
      );
      assert.equal(validate.statusCode, 200, validate.body);
      assert.equal(validate.json().assignmentId, second.id);
      assert.equal(validate.json().refundToBalance, true);
      assert.equal(validate.json().refundedAmount, FR_1MB.price / 100);
      assert.equal(await balance(), before);

      const revoked = await call(
        'DELETE',
        `/v2.4/esims/${iccid}/bundles/${FR_1MB.name}?refundToBalance=true&offerId=${second.id}`,
      );
      assert.equal(revoked.statusCode, 200, revoked.body);
      assert.equal(revoked.json().bundleState, 'Revoked');
      assert.equal(revoked.json().refundToInventory, false);
      assert.equal(await balance(), before + FR_1MB.price);
      const history = (await call('GET', `/v2.1/esims/${iccid}/history`)).json() as {
        name: string;
      }[];
      assert.ok(history.some((h) => h.name === 'Bundle Refunded To Balance'));

      // v2.1 ignores the parameters: the oldest unused one goes back to inventory, no money.
      const plain = await call(
        'DELETE',
        `/v2.1/esims/${iccid}/bundles/${FR_1MB.name}?refundToBalance=true`,
      );
      assert.equal(plain.statusCode, 200, plain.body);
      assert.equal(plain.json().assignmentId, first.id);
      assert.equal(plain.json().refundToInventory, true);
      assert.equal(await balance(), before + FR_1MB.price);

      // A started assignment cannot go back to the balance (v2.5's per-assignment revoke).
      const [used = ''] = (await buy(t, org, FR_1MB.name)).iccids;
      await installAndAttach(t, used);
      await use(t, used, 1000);
      const active = (await call('GET', `/v2.1/esims/${used}/bundles`)).json().bundles[0]
        .assignments[0].id as string;
      const refused = await call(
        'DELETE',
        `/v2.5/esims/${used}/bundles/${FR_1MB.name}/assignments/${active}?refundToBalance=true`,
      );
      assert.equal(refused.statusCode, 400, refused.body);
      assert.equal(refused.json().code, 'refund_not_allowed');
      const elsewhere = await call(
        'DELETE',
        `/v2.4/esims/${iccid}/bundles/${FR_1MB.name}?refundToBalance=true&offerId=${second.id}`,
        undefined,
        other.apiKey,
      );
      assert.equal(elsewhere.statusCode, 404);

      // The books balance after refunds and a deletion.
      assert.equal((await call('DELETE', `/v2.5/esims/${used}`)).statusCode, 200);
      const verify = await runCli(['ledger', 'verify', '--json'], f.env);
      assert.equal(verify.code, 0, verify.err + verify.out);
      assert.equal(JSON.parse(verify.out).ok, true);
    });
  });
}
