import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  FR_1MB,
  FR_2MB,
  assignmentsOf,
  buy,
  getJson,
  inventoryUnits,
  seedTestBundles,
} from '../../../../test/esim-fixtures.js';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';

for (const kind of DATABASES) {
  describe(`POST /v2.1/esims/apply [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let other: TestOrg;

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000 });
      other = await t.createOrg({ balance: 100_000 });
      await buy(t, org, FR_1MB.name, { quantity: 3, assign: false });
    });
    after(() => t.close());

    const units = (name: string): Promise<number> => inventoryUnits(t, org, name);
    const apply = (key: string, payload: Record<string, unknown>) =>
      t.request(key, { method: 'POST', url: '/v2.1/esims/apply', payload });

    it('applies an inventory bundle onto a new eSIM, then onto that owned eSIM', async () => {
      const fresh = await apply(org.apiKey, { name: FR_1MB.name });
      assert.equal(fresh.statusCode, 200, fresh.body);
      const body = fresh.json();
      assert.match(body.applyReference, /^[0-9a-f-]{36}$/);
      assert.equal(body.esims.length, 1);
      const iccid = body.esims[0].iccid;
      assert.equal(body.esims[0].status, 'Successfully Assigned');
      assert.equal(body.esims[0].bundleState, 'Queued');
      assert.equal(await units(FR_1MB.name), 2);

      const onto = await apply(org.apiKey, { name: FR_1MB.name, iccid, repeat: 2 });
      assert.equal(onto.statusCode, 200, onto.body);
      assert.equal(onto.json().esims.length, 2);
      assert.equal(await units(FR_1MB.name), 0);
      const rows = await assignmentsOf(t, org, iccid);
      assert.equal(rows.length, 3);
      assert.deepEqual(
        rows.map((r) => r.assignment.reference),
        [body.applyReference, onto.json().applyReference, onto.json().applyReference],
      );
      const csv = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/esims/assignments?reference=${body.applyReference}`,
      });
      assert.equal(csv.statusCode, 200);
      assert.match(csv.body, new RegExp(`^${iccid},`, 'm'));
    });

    it('changes nothing when the inventory is short, the bundle unknown or the eSIM not owned', async () => {
      await buy(t, org, FR_2MB.name, { quantity: 1, assign: false });
      const short = await apply(org.apiKey, { name: FR_2MB.name, repeat: 2 });
      assert.equal(short.statusCode, 400);
      assert.match(short.json().message, /inventory/);
      assert.equal(await units(FR_2MB.name), 1);
      const esimsBefore = ((await getJson(t, org, '/v2.1/esims')) as { rows: number }).rows;

      const unknown = await apply(org.apiKey, { name: 'esim_nope' });
      assert.equal(unknown.statusCode, 400);
      assert.match(unknown.json().message, /name/);

      const theirs = (await buy(t, other, FR_1MB.name)).iccids[0] ?? '';
      const foreign = await apply(org.apiKey, { name: FR_2MB.name, iccid: theirs });
      assert.equal(foreign.statusCode, 404);
      const malformed = await apply(org.apiKey, { name: FR_2MB.name, iccid: '8912' });
      assert.equal(malformed.statusCode, 400);
      assert.match(malformed.json().message, /^body field iccid "8912" is not an ICCID/);
      assert.equal(malformed.json().code, 'invalid_iccid');

      assert.equal(await units(FR_2MB.name), 1);
      assert.equal(((await getJson(t, org, '/v2.1/esims')) as { rows: number }).rows, esimsBefore);
    });

    it('replays an apply with the same Idempotency-Key and takes the unit once', async () => {
      const buyer = await t.createOrg({ balance: 100_000 });
      await buy(t, buyer, FR_1MB.name, { quantity: 2, assign: false });
      const send = (payload: Record<string, unknown>) =>
        t.request(buyer.apiKey, {
          method: 'POST',
          url: '/v2.1/esims/apply',
          headers: { 'idempotency-key': 'apply-once' },
          payload,
        });
      const first = await send({ name: FR_1MB.name });
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      const again = await send({ name: FR_1MB.name });
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.json(), first.json());
      assert.equal(await inventoryUnits(t, buyer, FR_1MB.name), 1);
      const esims = (await getJson(t, buyer, '/v2.1/esims')) as { rows: number };
      assert.equal(esims.rows, 1);

      const other = await send({ name: FR_2MB.name });
      assert.equal(other.statusCode, 409);
      assert.equal(other.json().code, 'idempotency_key_reused');
      assert.equal(await inventoryUnits(t, buyer, FR_1MB.name), 1);
    });
  });
}
