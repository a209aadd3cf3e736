import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  FR_1MB,
  assignmentsOf,
  buy,
  getJson,
  seedTestBundles,
} from '../../../../test/esim-fixtures.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';
import { DATABASES } from '../../../../test/harness.js';
import type { FileBackedApp } from '../../../../test/fixtures/orders.js';
import { runCli, startFileBackedApp } from '../../../../test/fixtures/orders.js';

interface EsimDetails {
  iccid: string;
  customerRef: string;
  lastAction: string;
  actionDate: string;
  physical: boolean;
  assignedDate: string;
}

// A valid ICCID (Luhn) that no organisation owns.
const UNKNOWN_ICCID = '8944000000000000019';

for (const kind of DATABASES) {
  describe(`PUT /v2.1/esims (customerRef) and the live eSIM fields [${kind}]`, () => {
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

    const put = (who: TestOrg, payload: unknown) =>
      t.request(who.apiKey, {
        method: 'PUT',
        url: '/v2.1/esims',
        payload: payload as Record<string, unknown>,
      });
    const details = async (iccid: string) =>
      (await getJson(t, org, `/v2.1/esims/${iccid}`)) as EsimDetails;
    const listed = async (iccid: string) =>
      ((await getJson(t, org, '/v2.1/esims?perPage=500')) as { esims: EsimDetails[] }).esims.find(
        (e) => e.iccid === iccid,
      );
    const newestHistory = async (iccid: string) =>
      (
        (await getJson(t, org, `/v2.1/esims/${iccid}/history`)) as { name: string; date: string }[]
      )[0];

    it('carries customerRef, lastAction, actionDate, physical and assignedDate in details and list', async () => {
      const { iccids } = await buy(t, org, FR_1MB.name);
      const iccid = iccids[0] ?? '';
      const newest = await newestHistory(iccid);
      const [first] = await assignmentsOf(t, org, iccid);
      const expected = {
        customerRef: '',
        lastAction: newest?.name,
        actionDate: newest?.date,
        physical: false,
        assignedDate: (first?.assignment as { assignmentDateTime?: string } | undefined)
          ?.assignmentDateTime,
      };
      assert.ok(expected.lastAction !== undefined && expected.lastAction !== '');
      assert.ok(expected.assignedDate !== undefined && expected.assignedDate !== '');
      const d = await details(iccid);
      assert.deepEqual(
        {
          customerRef: d.customerRef,
          lastAction: d.lastAction,
          actionDate: d.actionDate,
          physical: d.physical,
          assignedDate: d.assignedDate,
        },
        expected,
      );
      const l = await listed(iccid);
      assert.deepEqual(
        {
          customerRef: l?.customerRef,
          lastAction: l?.lastAction,
          actionDate: l?.actionDate,
          physical: l?.physical,
          assignedDate: l?.assignedDate,
        },
        expected,
      );
    });

    it('sets and clears the customer reference and records "eSIM Updated"', async () => {
      const { iccids } = await buy(t, org, FR_1MB.name);
      const iccid = iccids[0] ?? '';
      t.clock.advance(60);
      const sent = t.clock.now().toISOString();
      const res = await put(org, { iccid, customerRef: 'customer-4711' });
      const answered = t.clock.now().toISOString();
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { status: 'success', iccid, customerRef: 'customer-4711' });
      const d = await details(iccid);
      assert.equal(d.customerRef, 'customer-4711');
      assert.equal(d.lastAction, 'eSIM Updated');
      assert.ok(sent <= d.actionDate && d.actionDate <= answered, d.actionDate);
      assert.equal((await listed(iccid))?.customerRef, 'customer-4711');
      assert.equal((await newestHistory(iccid))?.name, 'eSIM Updated');

      // The query-string form of the live documentation, without a body.
      const byQuery = await t.request(org.apiKey, {
        method: 'PUT',
        url: `/v2.1/esims?iccid=${iccid}&customerRef=from-query`,
      });
      assert.equal(byQuery.statusCode, 200, byQuery.body);
      assert.equal((await details(iccid)).customerRef, 'from-query');
      const queryMissing = await t.request(org.apiKey, {
        method: 'PUT',
        url: `/v2.1/esims?iccid=${iccid}`,
      });
      assert.equal(queryMissing.statusCode, 400);
      assert.equal(queryMissing.json().message, 'query parameter customerRef is required');
      // Refusals of the query form name query parameters, not body fields.
      const queryMalformed = await t.request(org.apiKey, {
        method: 'PUT',
        url: '/v2.1/esims?iccid=1234&customerRef=x',
      });
      assert.equal(queryMalformed.statusCode, 400);
      assert.match(queryMalformed.json().message, /^query parameter iccid "1234" is not an ICCID/);
      assert.equal(queryMalformed.json().code, 'invalid_iccid');

      const cleared = await put(org, { iccid, customerRef: '' });
      assert.equal(cleared.statusCode, 200);
      assert.equal((await details(iccid)).customerRef, '');
    });

    it('refuses a bad ICCID or reference, and another organisation’s eSIM', async () => {
      const { iccids } = await buy(t, org, FR_1MB.name);
      const iccid = iccids[0] ?? '';
      await put(org, { iccid, customerRef: 'mine' });

      const malformed = await put(org, { iccid: '1234', customerRef: 'x' });
      assert.equal(malformed.statusCode, 400);
      assert.match(malformed.json().message, /body field iccid "1234" is not an ICCID/);
      assert.equal(malformed.json().code, 'invalid_iccid');
      const missing = await put(org, { iccid });
      assert.equal(missing.statusCode, 400);
      assert.match(missing.json().message, /customerRef/);
      const long = await put(org, { iccid, customerRef: 'x'.repeat(256) });
      assert.equal(long.statusCode, 400);
      assert.match(long.json().message, /customerRef/);
      const unknown = await put(org, { iccid: UNKNOWN_ICCID, customerRef: 'x' });
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.json().message, `eSIM ${UNKNOWN_ICCID} not found`);

      const foreign = await put(other, { iccid, customerRef: 'theirs' });
      assert.equal(foreign.statusCode, 404);
      assert.equal(foreign.json().message, `eSIM ${iccid} not found`);
      const noKey = await t.request(undefined, {
        method: 'PUT',
        url: '/v2.1/esims',
        payload: { iccid, customerRef: 'x' },
      });
      assert.equal(noKey.statusCode, 403);
      assert.equal((await details(iccid)).customerRef, 'mine');
    });

    it('esim esims set-ref does the same from the command line', async () => {
      const { iccids } = await buy(t, org, FR_1MB.name);
      const iccid = iccids[0] ?? '';
      const done = await runCli(['esims', 'set-ref', iccid, '--customer-ref', 'fleet-7'], f.env);
      assert.equal(done.code, 0, done.err);
      assert.equal((await details(iccid)).customerRef, 'fleet-7');
      const unknown = await runCli(
        ['esims', 'set-ref', UNKNOWN_ICCID, '--customer-ref', 'x'],
        f.env,
      );
      assert.equal(unknown.code, 1);
      assert.match(unknown.err, /not found/);
      const bad = await runCli(['esims', 'set-ref', '1234', '--customer-ref', 'x'], f.env);
      assert.equal(bad.code, 2);
    });
  });
}
