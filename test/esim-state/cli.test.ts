import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FR_1MB, MB, buy, installAndAttach, seedTestBundles, sim, use } from '../esim-fixtures.js';
import { DATABASES } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import type { FileBackedApp } from '../fixtures/orders.js';
import { runCli, startFileBackedApp } from '../fixtures/orders.js';

// eSIM state through the command line, and what the rest of the service makes of it: a suspended
// eSIM uses no data and gets no SMS until it is unsuspended; a deleted one leaves the eSIM list,
// its install data is gone (410), and it takes no bundle, refresh or SMS (400).

for (const kind of DATABASES) {
  describe(`esim esims suspend|unsuspend|delete [${kind}]`, () => {
    let f: FileBackedApp;
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      f = await startFileBackedApp(kind);
      t = f.t;
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000 });
    });
    after(() => f.close());

    const cli = (...args: string[]) => runCli(args, f.env);
    const listed = async (): Promise<string[]> => {
      const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/esims' });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json().esims as { iccid: string }[]).map((e) => e.iccid);
    };

    it('a suspended eSIM is served no data and no SMS; both resume after unsuspend', async () => {
      const [iccid = ''] = (await buy(t, org, FR_1MB.name)).iccids;
      await installAndAttach(t, iccid);
      await sim(t, 'POST', `/_sim/esims/${iccid}/msisdn`, { country: 'FR' });
      const before = await use(t, iccid, 100_000);
      assert.equal(before['consumedBytes'], 100_000);

      const suspended = await cli('esims', 'suspend', iccid);
      assert.equal(suspended.code, 0, suspended.err);
      assert.equal(suspended.out.trim(), `eSIM ${iccid}: suspended`);
      const again = await cli('esims', 'suspend', iccid);
      assert.equal(again.out.trim(), `eSIM ${iccid}: suspended (unchanged)`);

      const refused = await use(t, iccid, 100_000);
      assert.equal(refused['consumedBytes'], 0);
      assert.equal(refused['unservedBytes'], 100_000);
      assert.match(String(refused['reason']), /suspended/);
      const sms = await t.request(org.apiKey, {
        method: 'POST',
        url: `/v2.1/esims/${iccid}/sms`,
        payload: { message: 'hello' },
      });
      assert.equal(sms.statusCode, 400, sms.body);
      assert.equal(sms.json().code, 'esim_suspended');
      assert.match(sms.json().message, /suspended and cannot receive SMS/);
      const outbox = await sim(t, 'GET', `/_sim/sms?iccid=${iccid}`);
      assert.deepEqual(outbox['messages'], []);

      const resumed = await cli('esims', 'unsuspend', iccid);
      assert.equal(resumed.out.trim(), `eSIM ${iccid}: active`);
      const after = await use(t, iccid, 200_000);
      assert.equal(after['consumedBytes'], 200_000);
      const bundles = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/esims/${iccid}/bundles`,
      });
      const assignment = bundles.json().bundles[0].assignments[0];
      assert.equal(assignment.usedQuantity, 300_000);
      assert.equal(assignment.remainingQuantity, MB - 300_000);
      const delivered = await t.request(org.apiKey, {
        method: 'POST',
        url: `/v2.1/esims/${iccid}/sms`,
        payload: { message: 'hello' },
      });
      assert.equal(delivered.statusCode, 200, delivered.body);
      const history = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/esims/${iccid}/history`,
      });
      const names = (history.json() as { name: string }[]).map((h) => h.name);
      assert.ok(names.includes('eSIM Suspended'), names.join());
      assert.ok(names.includes('eSIM Unsuspended'), names.join());
    });

    it('a deleted eSIM is gone: out of the list, install data 410, no apply, refresh or SMS', async () => {
      const bought = await buy(t, org, FR_1MB.name, { quantity: 2 });
      const [gone = '', kept = ''] = bought.iccids;
      await installAndAttach(t, gone);
      assert.ok((await listed()).includes(gone));

      const unconfirmed = await cli('esims', 'delete', gone);
      assert.equal(unconfirmed.code, 2, unconfirmed.out);
      assert.match(unconfirmed.err, /--yes/);
      const deleted = await cli('esims', 'delete', gone, '--yes');
      assert.equal(deleted.code, 0, deleted.err);
      assert.match(
        deleted.out,
        /deleted \(deactivated\); 1 bundle assignment revoked without refund/,
      );

      const list = await listed();
      assert.ok(!list.includes(gone), 'a deleted eSIM leaves the list');
      assert.ok(list.includes(kept), 'its order sibling stays');
      const bundles = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/esims/${gone}/bundles?includeUsed=true`,
      });
      assert.equal(bundles.json().bundles[0].assignments[0].bundleState, 'Revoked');

      // The order's install data keeps the eSIM still on the account.
      const csv = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/esims/csv/${bought.orderReference}`,
      });
      assert.equal(csv.statusCode, 200, csv.body);
      assert.ok(csv.body.includes(kept));
      assert.ok(!csv.body.includes(gone));

      const refresh = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/esims/${gone}/refresh`,
      });
      assert.equal(refresh.statusCode, 400, refresh.body);
      assert.equal(refresh.json().code, 'esim_deactivated');
      const sms = await t.request(org.apiKey, {
        method: 'POST',
        url: `/v2.1/esims/${gone}/sms`,
        payload: { message: 'hello' },
      });
      assert.equal(sms.statusCode, 400);
      assert.match(sms.json().message, /deactivated and cannot receive SMS/);
      const usage = await sim(t, 'POST', `/_sim/esims/${gone}/usage`, { bytes: 10 }, 400);
      assert.match(String(usage['message']), /deactivated/);

      // A bundle in inventory cannot go onto it, by apply or by order.
      await buy(t, org, FR_1MB.name, { assign: false });
      const apply = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/esims/apply',
        payload: { name: FR_1MB.name, iccid: gone },
      });
      assert.equal(apply.statusCode, 400, apply.body);
      assert.equal(apply.json().code, 'esim_deactivated');
      const order = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: {
          type: 'transaction',
          assign: true,
          order: [{ type: 'bundle', item: FR_1MB.name, quantity: 1, iccids: [gone] }],
        },
      });
      assert.equal(order.statusCode, 400, order.body);

      const twice = await cli('esims', 'delete', gone, '--yes');
      assert.equal(twice.code, 1);
      assert.match(twice.err, /already deleted/);
      const suspend = await cli('esims', 'suspend', gone);
      assert.equal(suspend.code, 1);
      assert.match(suspend.err, /deactivated/);

      // Once every eSIM of a reference is deleted, its install data is gone.
      const alone = await buy(t, org, FR_1MB.name);
      const only = alone.iccids[0] ?? '';
      assert.equal((await cli('esims', 'delete', only, '--yes')).code, 0);
      for (const path of ['csv', 'qr']) {
        const res = await t.request(org.apiKey, {
          method: 'GET',
          url: `/v2.1/esims/${path}/${alone.orderReference}`,
        });
        assert.equal(res.statusCode, 410, `${path}: ${res.body}`);
        assert.equal(res.json().code, 'esim_gone');
      }
    });

    it('names an unknown eSIM and refuses a malformed ICCID', async () => {
      const unknown = await cli('esims', 'suspend', '8944000000000000002');
      assert.notEqual(unknown.code, 0);
      const malformed = await cli('esims', 'delete', '123', '--yes');
      assert.equal(malformed.code, 2);
      assert.match(malformed.err, /not an ICCID/);
    });
  });
}
