import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOrganisation } from '../../src/domain/organisations/organisation-changes.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { FR_1MB, buy, seedTestBundles, sim } from '../esim-fixtures.js';

// The wire details docs/versions.md names under "One type per field": the eSIM list says
// firstInstalledDateTime as the eSIM does, `msisdn` is v2.5's (and v2.1's list's), a date is a
// date or left out, and a refusal (an unpaid order, a top-up amount outside the limits) speaks in
// the money of its version.

type Json = Record<string, unknown>;

for (const kind of DATABASES) {
  describe(`wire details of the later versions [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let iccid: string;

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000, groups: ['Standard eSIM Bundles'] });
      [iccid = ''] = (await buy(t, org, FR_1MB.name)).iccids;
      await sim(t, 'POST', `/_sim/esims/${iccid}/install`, {});
      await sim(t, 'POST', `/_sim/esims/${iccid}/msisdn`, {});
    });
    after(() => t.close());

    const get = async (url: string, apiKey = org.apiKey): Promise<Json> => {
      const res = await t.request(apiKey, { method: 'GET', url });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      return res.json<Json>();
    };
    const listed = async (v: string): Promise<Json> => {
      const page = await get(`/v${v}/esims?filterBy=iccid&filter=${iccid}`);
      const [item] = (page['esims'] as Json[] | undefined) ?? [];
      assert.ok(item !== undefined, `v${v}: the eSIM is listed`);
      return item;
    };

    it('GET /esims says firstInstalledDateTime as GET /esims/{iccid} does, on every version', async () => {
      for (const v of ['2.2', '2.3', '2.4', '2.5']) {
        const detail = await get(`/v${v}/esims/${iccid}`);
        const item = await listed(v);
        assert.equal(item['firstInstalledDateTime'], detail['firstInstalledDateTime'], `v${v}`);
        assert.equal(typeof item['firstInstalledDateTime'], v >= '2.4' ? 'number' : 'string');
      }
    });

    it('lists msisdn on v2.5 (and v2.1), not on v2.2 to v2.4', async () => {
      const { msisdn } = await get(`/v2.5/esims/${iccid}`);
      assert.match(String(msisdn), /^\d{8,15}$/);
      for (const v of ['2.1', '2.5']) assert.equal((await listed(v))['msisdn'], msisdn, `v${v}`);
      for (const v of ['2.2', '2.3', '2.4']) assert.equal('msisdn' in (await listed(v)), false);
    });

    it('GET /organisation: testCreditExpiry a date-time from v2.4, left out when there is none', async () => {
      const v24 = await get('/v2.4/organisation');
      assert.equal('testCreditExpiry' in v24, false);
      const v21 = await get('/v2.1/organisation');
      const [wrapped] = v21['organisations'] as Json[];
      assert.equal(wrapped?.['testCreditExpiry'], '');
      const deps = t.deps;
      const credited = await createOrganisation(
        { db: deps.store.db, clock: deps.clock, random: deps.random, cipher: deps.cipher },
        { name: 'Credited Travel', testCredit: 500, testCreditDays: 30 },
      );
      for (const v of ['2.4', '2.5']) {
        const body = await get(`/v${v}/organisation`, credited.apiKey);
        const expiry = String(body['testCreditExpiry']);
        assert.match(expiry, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
        assert.equal(body['testCredit'], 5);
      }
    });

    it('says an unpaid order in the money of the version', async () => {
      const poor = await t.createOrg({ balance: 50, groups: ['Standard eSIM Bundles'] });
      const order = {
        type: 'transaction',
        order: [{ type: 'bundle', item: FR_1MB.name, quantity: 1 }],
      };
      const messages = new Map<string, string>();
      for (const v of ['2.1', '2.3', '2.4', '2.5']) {
        const res = await t.request(poor.apiKey, {
          method: 'POST',
          url: `/v${v}/orders`,
          payload: order,
        });
        assert.equal(res.statusCode, 400);
        messages.set(v, res.json<{ message: string }>().message);
      }
      const minor =
        'insufficient balance: the order total is 100 USD minor units but only 50 is available (balance 50, test credit 0)';
      const major =
        'insufficient balance: the order total is 1.00 USD but only 0.50 is available (balance 0.50, test credit 0.00)';
      assert.deepEqual(Object.fromEntries(messages), {
        '2.1': minor,
        '2.3': minor,
        '2.4': major,
        '2.5': major,
      });
      const organisation = await get('/v2.5/organisation', poor.apiKey);
      assert.equal(organisation['balance'], 0.5);
    });

    it('says a top-up amount outside the limits in the money of the version, also on a repeat', async () => {
      // TOPUP_MIN 500 and TOPUP_MAX 1000000 minor units: 5.00 and 10000.00 USD.
      const topUp = async (v: string, amount: string, key: string): Promise<string> => {
        const res = await t.request(org.apiKey, {
          method: 'POST',
          url: `/v${v}/organisation/balance?amount=${amount}`,
          headers: { 'idempotency-key': key },
        });
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json<{ code: string }>().code, 'invalid_amount');
        return res.json<{ message: string }>().message;
      };
      const said = async (v: string, amount: string): Promise<string> => {
        const key = `top-up-limit-${v}-${amount}`;
        const first = await topUp(v, amount, key);
        assert.equal(await topUp(v, amount, key), first, `v${v}: the repeat says the same`);
        return first;
      };
      for (const v of ['2.1', '2.3']) {
        assert.equal(await said(v, '100'), 'amount must be at least 500, got 100', `v${v}`);
        assert.equal(
          await said(v, '2000000'),
          'amount must be at most 1000000, got 2000000',
          `v${v}`,
        );
      }
      for (const v of ['2.4', '2.5']) {
        assert.equal(await said(v, '1'), 'amount must be at least 5.00 USD, got 1.00', `v${v}`);
        assert.equal(
          await said(v, '20000.5'),
          'amount must be at most 10000.00 USD, got 20000.50',
          `v${v}`,
        );
        assert.equal(
          await said(v, '123456789012345678901234567890'),
          'amount must be at most 10000.00 USD, got 123456789012345678901234567890.00',
          `v${v}`,
        );
      }
    });

    it('refuses a malformed top-up amount with invalid_amount on every version', async () => {
      const refusal = async (v: string, query: string): Promise<string> => {
        const res = await t.request(org.apiKey, {
          method: 'POST',
          url: `/v${v}/organisation/balance${query}`,
        });
        assert.equal(res.statusCode, 400, `v${v} ${query}: ${res.body}`);
        assert.match(res.json<{ message: string }>().message, /amount/, `v${v} ${query}`);
        return res.json<{ code: string }>().code;
      };
      const code = (v: string, amount: string) =>
        refusal(v, `?amount=${encodeURIComponent(amount)}`);
      const malformed: Record<string, string[]> = {
        '2.1': ['abc', '-5', '1.5', '1e4', ''],
        '2.4': ['abc', '-5', '1e4', '25.001', ''],
        '2.5': ['abc', '-5', '1e4', '25.001', ''],
      };
      for (const [v, amounts] of Object.entries(malformed)) {
        for (const amount of amounts) assert.equal(await code(v, amount), 'invalid_amount');
        // Missing or given twice: as any parameter (docs/payments.md).
        assert.equal(await refusal(v, ''), 'validation_failed');
        assert.equal(await refusal(v, '?amount=500&amount=600'), 'validation_failed');
      }
    });
  });
}
