import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  FR_1MB,
  MB,
  assignmentsOf,
  buy,
  getJson,
  seedTestBundles,
} from '../../../test/esim-fixtures.js';
import { DATABASES, startTestApp } from '../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../test/harness.js';
import type { NetworkEvent, NetworkEventSink } from '../esims/lifecycle/network-events.js';
import { recordAttach } from './attach.js';
import { recordDataUse } from './data-use.js';
import type { MsisdnAllocator } from './msisdn.js';
import { numberEsim } from './msisdn.js';
import { recordProfileStatus } from './profile.js';

// The inbound use cases as a real network integration calls them: in production mode, with no
// simulator, the same history, location, lifecycle and callback events as through /_sim.

const ORANGE_FR = { mcc: '208', mnc: '01', name: 'Orange', country: 'FR' } as const;
const VODAFONE_DE = { mcc: '262', mnc: '02', name: 'Vodafone', country: 'DE' } as const;

for (const kind of DATABASES) {
  describe(`inbound network events without the simulator [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    const events: NetworkEvent[] = [];
    let failNext = false;

    before(async () => {
      t = await startTestApp(kind, { mode: 'production' });
      assert.equal(t.deps.simulator, undefined);
      const sink = t.deps.networkEvents;
      const observed: NetworkEventSink = {
        async record(trx, event, at) {
          if (failNext) {
            failNext = false;
            throw new Error('sink unavailable');
          }
          events.push(event);
          await sink.record(trx, event, at);
        },
      };
      Object.assign(t.deps, { networkEvents: observed });
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000 });
    });
    after(() => t.close());

    it('installs, attaches and serves data with history, location and events', async () => {
      const iccid = (await buy(t, org, FR_1MB.name)).iccids[0] ?? '';
      events.length = 0;

      const installed = await recordProfileStatus(t.deps, iccid, 'Installed');
      assert.equal(installed.profileStatus, 'Installed');
      const firstInstalled = installed.firstInstalledDateTime;
      assert.equal(new Date(firstInstalled).toISOString(), firstInstalled);
      const esim = (await getJson(t, org, `/v2.1/esims/${iccid}`)) as Record<string, string>;
      assert.equal(esim['profileStatus'], 'Installed');
      assert.equal(esim['firstInstalledDateTime'], installed.firstInstalledDateTime);

      const attached = await recordAttach(t.deps, iccid, ORANGE_FR);
      assert.equal(attached.mobileNetworkCode, '20801');
      const location = (await getJson(t, org, `/v2.1/esims/${iccid}/location`)) as Record<
        string,
        string
      >;
      assert.equal(location['networkName'], 'Orange');
      assert.equal(location['country'], 'FR');

      const used = await recordDataUse(t.deps, iccid, 400_000);
      assert.equal(used.consumedBytes, 400_000);
      assert.deepEqual(used.transitions, ['Queued -> Active']);
      const rows = await assignmentsOf(t, org, iccid);
      assert.deepEqual(
        rows.map((r) => [r.assignment.bundleState, r.assignment.usedQuantity]),
        [['Active', 400_000]],
      );
      const rest = await recordDataUse(t.deps, iccid, MB);
      assert.equal(rest.consumedBytes, 600_000);
      assert.deepEqual(rest.transitions, ['Active -> Depleted']);

      const history = (await getJson(t, org, `/v2.1/esims/${iccid}/history`)) as {
        name: string;
      }[];
      const names = history.map((h) => h.name);
      for (const name of ['eSIM Installed', 'Bundle Activated', 'Bundle Depleted']) {
        assert.ok(names.includes(name), `history has ${name}: ${names.join(', ')}`);
      }
      assert.deepEqual(
        events.map((e) => e.type),
        ['attach', 'usage', 'usage'],
      );
      const [attach, first] = events;
      assert.ok(attach?.type === 'attach' && first?.type === 'usage');
      assert.equal(attach.firstAttachment, true);
      assert.equal(attach.assignment?.state, 'Queued');
      assert.equal(first.firstUse, true);
    });

    it('records a status change once, and a deletion as eSIM Deleted', async () => {
      const iccid = (await buy(t, org, FR_1MB.name)).iccids[0] ?? '';
      await recordProfileStatus(t.deps, iccid, 'Installed');
      await recordProfileStatus(t.deps, iccid, 'Installed');
      const deleted = await recordProfileStatus(t.deps, iccid, 'Unavailable');
      assert.equal(deleted.profileStatus, 'Unavailable');
      assert.notEqual(deleted.firstInstalledDateTime, '');
      const history = (await getJson(t, org, `/v2.1/esims/${iccid}/history`)) as {
        name: string;
      }[];
      const names = history.map((h) => h.name);
      assert.equal(names.filter((n) => n === 'eSIM Installed').length, 1);
      assert.equal(names.filter((n) => n === 'eSIM Deleted').length, 1);
    });

    it('refuses events it cannot apply with coded errors', async () => {
      const iccid = (await buy(t, org, FR_1MB.name)).iccids[0] ?? '';
      await assert.rejects(recordAttach(t.deps, iccid, ORANGE_FR), {
        code: 'bad_request',
        message: /install it before attaching/,
      });
      await assert.rejects(recordDataUse(t.deps, iccid, 1), {
        code: 'bad_request',
        message: /not attached/,
      });
      await assert.rejects(recordProfileStatus(t.deps, iccid, 'Released'), {
        code: 'bad_request',
      });
      await assert.rejects(recordProfileStatus(t.deps, '8944000000000000999', 'Installed'), {
        code: 'not_found',
      });
    });

    it('writes nothing when the event cannot be recorded: one transaction', async () => {
      const iccid = (await buy(t, org, FR_1MB.name)).iccids[0] ?? '';
      await recordProfileStatus(t.deps, iccid, 'Installed');
      await recordAttach(t.deps, iccid, ORANGE_FR);
      failNext = true;
      await assert.rejects(recordAttach(t.deps, iccid, VODAFONE_DE), /sink unavailable/);
      const location = (await getJson(t, org, `/v2.1/esims/${iccid}/location`)) as Record<
        string,
        string
      >;
      assert.equal(location['country'], 'FR');
      assert.equal(location['networkName'], 'Orange');

      failNext = true;
      await assert.rejects(recordDataUse(t.deps, iccid, 1000), /sink unavailable/);
      const rows = await assignmentsOf(t, org, iccid);
      assert.deepEqual(
        rows.map((r) => [r.assignment.bundleState, r.assignment.usedQuantity]),
        [['Queued', 0]],
      );
    });

    it('numbers an eSIM with what the network allocates, skipping a number already taken', async () => {
      const [a, b] = (await buy(t, org, FR_1MB.name, { quantity: 2 })).iccids;
      assert.ok(a !== undefined && b !== undefined);
      const asked: { iccid: string; country: string; callingCode: string }[] = [];
      const offers = ['447000000001', '447000000001', '447000000002'];
      const network: MsisdnAllocator = {
        async allocateMsisdn(input) {
          asked.push({ ...input });
          const next = offers.shift();
          assert.ok(next !== undefined, 'asked for more numbers than offered');
          return next;
        },
      };
      const sms = (iccid: string) =>
        t.request(org.apiKey, {
          method: 'POST',
          url: `/v2.1/esims/${iccid}/sms`,
          payload: { message: 'hello' },
        });
      assert.equal((await sms(a)).json().code, 'no_msisdn');

      assert.equal(
        await numberEsim({ store: t.deps.store, network }, a, undefined),
        '447000000001',
      );
      assert.equal(await numberEsim({ store: t.deps.store, network }, b, 'GB'), '447000000002');
      assert.equal(await numberEsim({ store: t.deps.store, network }, b, 'US'), '447000000002');
      assert.deepEqual(
        asked.map((x) => [x.iccid, x.country, x.callingCode]),
        [
          [a, 'GB', '44'],
          [b, 'GB', '44'],
          [b, 'GB', '44'],
        ],
      );
      assert.equal((await sms(a)).statusCode, 200);

      await assert.rejects(
        numberEsim({ store: t.deps.store, network }, '8944000000000000999', 'ZZ'),
        {
          code: 'not_found',
        },
      );
    });
  });
}
