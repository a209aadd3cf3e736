import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FR_1MB, seedTestBundles } from '../esim-fixtures.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// POST /orders?includeIccids=true (v2.2): accepted; assigned lines carry their eSIMs either way.

for (const kind of DATABASES) {
  describe(`POST /v2.2/orders?includeIccids [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000 });
    });
    after(() => t.close());

    const post = (query: string) =>
      t.request(org.apiKey, {
        method: 'POST',
        url: `/v2.2/orders${query}`,
        payload: {
          type: 'transaction',
          assign: true,
          order: [{ type: 'bundle', item: FR_1MB.name, quantity: 2 }],
        },
      });

    it('answers the eSIM data of each assigned line', async () => {
      for (const query of ['?includeIccids=true', '?includeIccids=false', '']) {
        const res = await post(query);
        assert.equal(res.statusCode, 200, res.body);
        const [line] = res.json<{
          order: {
            iccids: string[];
            esims: { iccid: string; matchingId: string; smdpAddress: string }[];
          }[];
        }>().order;
        assert.equal(line?.iccids.length, 2);
        assert.deepEqual(
          line?.esims.map((e) => e.iccid),
          line?.iccids,
        );
        assert.ok(line?.esims.every((e) => e.matchingId !== '' && e.smdpAddress !== ''));
      }
    });

    it('refuses a value that is not a boolean, naming the parameter', async () => {
      const res = await post('?includeIccids=maybe');
      assert.equal(res.statusCode, 400);
      assert.match(res.json<{ message: string }>().message, /includeIccids/);
    });
  });
}
