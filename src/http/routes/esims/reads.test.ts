import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FR_1MB, buy, getJson, seedTestBundles } from '../../../../test/esim-fixtures.js';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';
import { luhnCheckDigit } from '../../../domain/esims/esim-issuer.js';

// The eSIM reads answer from one statement each (the row with its activity; the assignments
// with their bundles' descriptions). These pin the edges of those joins: an eSIM with no
// assignment and no history, and an eSIM of another organisation.

const BARE_ICCID = ((body: string) => body + String(luhnCheckDigit(body)))('898800000000000777');

for (const kind of DATABASES) {
  describe(`eSIM reads from one statement [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let other: TestOrg;
    let bought: string;

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000 });
      other = await t.createOrg({ balance: 100_000 });
      bought = (await buy(t, org, FR_1MB.name)).iccids[0] ?? '';
      // An eSIM that was issued but never carried a bundle (no assignment, no history).
      await t.deps.store.db
        .insertInto('esims')
        .values({
          iccid: BARE_ICCID,
          organisation_id: org.id,
          matching_id: 'AAAAA-BBBBB-CCCCC-DDDDD',
          smdp_address: t.config.smdpAddress,
          profile_status: 'Released',
          pin: '1234',
          puk: '12345678',
          msisdn: null,
          first_installed_at: null,
          order_reference: null,
          created_at: t.clock.now().toISOString(),
          customer_ref: null,
        })
        .execute();
    });
    after(() => t.close());

    it('shows an eSIM with no assignment and no history, with empty activity', async () => {
      const esim = (await getJson(t, org, `/v2.1/esims/${BARE_ICCID}`)) as Record<string, unknown>;
      assert.equal(esim['iccid'], BARE_ICCID);
      assert.equal(esim['lastAction'], '');
      assert.equal(esim['actionDate'], '');
      assert.equal(esim['assignedDate'], '');
      assert.equal(esim['customerRef'], '');
      assert.deepEqual(await getJson(t, org, `/v2.1/esims/${BARE_ICCID}/bundles`), { bundles: [] });
      assert.deepEqual(await getJson(t, org, `/v2.1/esims/${BARE_ICCID}/history`), []);
      const location = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/esims/${BARE_ICCID}/location`,
      });
      assert.equal(location.statusCode, 404);
      assert.deepEqual(location.json(), {
        message: `eSIM ${BARE_ICCID} has not been seen on a network yet`,
        code: 'not_found',
      });
    });

    it('shows the newest history entry and the first assignment of a bought eSIM', async () => {
      const esim = (await getJson(t, org, `/v2.1/esims/${bought}`)) as Record<string, string>;
      assert.notEqual(esim['lastAction'], '');
      assert.notEqual(esim['assignedDate'], '');
      const history = (await getJson(t, org, `/v2.1/esims/${bought}/history`)) as {
        name: string;
      }[];
      assert.equal(history[0]?.name, esim['lastAction'], 'newest first');
      const { bundles } = (await getJson(t, org, `/v2.1/esims/${bought}/bundles`)) as {
        bundles: { name: string; description: string; assignments: unknown[] }[];
      };
      assert.deepEqual(
        bundles.map((b) => [b.name, b.description, b.assignments.length]),
        [[FR_1MB.name, FR_1MB.description, 1]],
      );
    });

    it('answers 404 for another organisation\u2019s eSIM on every read', async () => {
      for (const iccid of [bought, BARE_ICCID]) {
        for (const url of [
          `/v2.1/esims/${iccid}`,
          `/v2.1/esims/${iccid}/bundles`,
          `/v2.1/esims/${iccid}/bundles/${FR_1MB.name}`,
          `/v2.1/esims/${iccid}/history`,
          `/v2.1/esims/${iccid}/location`,
        ]) {
          const res = await t.request(other.apiKey, { method: 'GET', url });
          assert.equal(res.statusCode, 404, url);
          assert.deepEqual(res.json(), { message: `eSIM ${iccid} not found`, code: 'not_found' });
        }
      }
    });
  });
}
