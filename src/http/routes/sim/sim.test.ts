import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { restoreSimulatorClock } from '../../../network/simulator.js';
import { FR_1MB, buy, seedTestBundles, sim } from '../../../../test/esim-fixtures.js';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';

for (const kind of DATABASES) {
  describe(`simulator control plane /_sim [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let iccids: string[];

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000 });
      iccids = (await buy(t, org, FR_1MB.name, { quantity: 3 })).iccids;
    });
    after(() => t.close());

    it('advances the clock, reports it, and stores the offset for a restart', async () => {
      const before = await sim(t, 'GET', '/_sim/clock');
      const advanced = await sim(t, 'POST', '/_sim/clock/advance', { seconds: 3600 });
      assert.equal(Number(advanced['offsetSeconds']) - Number(before['offsetSeconds']), 3600);
      assert.ok(
        Date.parse(String(advanced['now'])) - Date.parse(String(before['now'])) >= 3600_000,
      );
      const restored = await restoreSimulatorClock(t.deps.store.db);
      assert.equal(restored.offset, t.clock.offset);
      await sim(t, 'POST', '/_sim/clock/advance', { seconds: 0 }, 400);
      await sim(t, 'POST', '/_sim/clock/advance', { seconds: -5 }, 400);
    });

    it('attaches by country or operator and refuses what no network could do', async () => {
      const [iccid = ''] = iccids;
      await sim(t, 'POST', `/_sim/esims/${iccid}/attach`, { country: 'FR' }, 400); // not installed
      const installed = await sim(t, 'POST', `/_sim/esims/${iccid}/install`, {});
      assert.equal(installed['profileStatus'], 'Installed');
      const byOperator = await sim(t, 'POST', `/_sim/esims/${iccid}/attach`, {
        mcc: '234',
        mnc: '15',
      });
      assert.equal(byOperator['networkName'], 'Vodafone UK');
      assert.equal(byOperator['country'], 'GB');
      const byCountry = await sim(t, 'POST', `/_sim/esims/${iccid}/attach`, { country: 'de' });
      assert.equal(byCountry['country'], 'DE');
      assert.match(String(byCountry['mobileNetworkCode']), /^262\d{2,3}$/);
      await sim(t, 'POST', `/_sim/esims/${iccid}/attach`, { country: 'XX' }, 400);
      await sim(t, 'POST', `/_sim/esims/${iccid}/attach`, { mcc: '999', mnc: '99' }, 400);
      await sim(t, 'POST', `/_sim/esims/${iccid}/attach`, { country: 'FR', mcc: '208' }, 400);
      await sim(t, 'POST', `/_sim/esims/${iccid}/attach`, {}, 400);
      await sim(t, 'POST', `/_sim/esims/8944000000000000000/attach`, { country: 'FR' }, 400);
      await sim(t, 'POST', `/_sim/esims/${iccid}/usage`, { bytes: 0 }, 400);
    });

    it('accepts a bodiless POST where every body field is optional', async () => {
      const [, , iccid = ''] = iccids;
      const res = await t.app.inject({ method: 'POST', url: `/_sim/esims/${iccid}/install` });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().profileStatus, 'Installed');
    });

    it('numbers an eSIM once, with the calling code of its country', async () => {
      const [, iccid = ''] = iccids;
      const first = await sim(t, 'POST', `/_sim/esims/${iccid}/msisdn`, {});
      assert.match(String(first['msisdn']), /^44\d{9}$/);
      const again = await sim(t, 'POST', `/_sim/esims/${iccid}/msisdn`, { country: 'US' });
      assert.equal(again['msisdn'], first['msisdn']);
      const [, , third = ''] = iccids;
      await sim(t, 'POST', `/_sim/esims/${third}/msisdn`, { country: 'ZZ' }, 400);
    });

    it('is reproducible under the seed: a reset replays the same operator choices', async () => {
      const [, , iccid = ''] = iccids;
      await sim(t, 'POST', `/_sim/esims/${iccid}/install`, {});
      await sim(t, 'POST', '/_sim/reset');
      const pick = async () => {
        const picks: string[] = [];
        for (let i = 0; i < 5; i += 1) {
          const r = await sim(t, 'POST', `/_sim/esims/${iccid}/attach`, { country: 'US' });
          picks.push(String(r['mobileNetworkCode']));
        }
        return picks;
      };
      const first = await pick();
      await sim(t, 'POST', '/_sim/reset');
      assert.deepEqual(await pick(), first);
    });

    it('injects faults into /v2.1 routes: a status N times, with a probability, and latency', async () => {
      const call = () => t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' });
      const fault = await sim(t, 'POST', '/_sim/faults', {
        route: '/organisation',
        method: 'GET',
        status: 503,
        count: 2,
      });
      assert.equal(fault['route'], '/v2.1/organisation');
      for (let i = 0; i < 2; i += 1) {
        const res = await call();
        assert.equal(res.statusCode, 503);
        assert.equal(res.json().code, 'simulated_fault');
        assert.equal(res.headers['retry-after'], '1');
      }
      assert.equal((await call()).statusCode, 200);
      assert.deepEqual((await sim(t, 'GET', '/_sim/faults'))['faults'], []);

      await sim(t, 'POST', '/_sim/faults', { route: '/v2.1/esims/*', status: 500, probability: 1 });
      await sim(t, 'POST', '/_sim/faults', {
        route: '/v2.1/inventory',
        status: 502,
        probability: 0,
      });
      const esim = await t.request(org.apiKey, { method: 'GET', url: `/v2.1/esims/${iccids[0]}` });
      assert.equal(esim.statusCode, 500);
      assert.equal(esim.json().code, 'simulated_fault');
      assert.equal(
        (await t.request(org.apiKey, { method: 'GET', url: '/v2.1/inventory' })).statusCode,
        200,
      );
      assert.equal((await call()).statusCode, 200, 'other routes are unaffected');
      assert.equal((await sim(t, 'DELETE', '/_sim/faults'))['removed'], 2);
      assert.equal(
        (await t.request(org.apiKey, { method: 'GET', url: `/v2.1/esims/${iccids[0]}` }))
          .statusCode,
        200,
      );

      await sim(t, 'POST', '/_sim/faults', { route: '/organisation', latencyMs: 150, count: 1 });
      const started = Date.now();
      assert.equal((await call()).statusCode, 200);
      assert.ok(Date.now() - started >= 140, 'latency was added');
      await sim(t, 'POST', '/_sim/faults', { route: '/organisation' }, 400);
      await sim(t, 'POST', '/_sim/faults', { route: '/organisation', status: 200 }, 400);
    });

    it('a fault is one version’s: a route without a version is /v2.1’s, /v2.5/… is v2.5’s', async () => {
      const organisation = (version: string) =>
        t.request(org.apiKey, { method: 'GET', url: `/${version}/organisation` });
      const bare = await sim(t, 'POST', '/_sim/faults', { route: '/organisation', status: 503 });
      assert.equal(bare['route'], '/v2.1/organisation');
      assert.equal((await organisation('v2.1')).statusCode, 503);
      assert.equal((await organisation('v2.5')).statusCode, 200, 'v2.5 is not faulted');
      await sim(t, 'DELETE', `/_sim/faults?id=${String(bare['id'])}`);

      const v25 = await sim(t, 'POST', '/_sim/faults', {
        route: '/v2.5/organisation',
        status: 503,
      });
      assert.equal(v25['route'], '/v2.5/organisation');
      const faulted = await organisation('v2.5');
      assert.equal(faulted.statusCode, 503);
      assert.equal(faulted.json().code, 'simulated_fault');
      assert.equal((await organisation('v2.1')).statusCode, 200, 'v2.1 is not faulted');
      assert.equal((await sim(t, 'DELETE', '/_sim/faults'))['removed'], 1);
    });

    it('reset clears faults and the processing setting', async () => {
      await sim(t, 'POST', '/_sim/faults', { route: '*', status: 429 });
      await sim(t, 'POST', '/_sim/processing', { delaySeconds: 120 });
      assert.equal((await sim(t, 'GET', '/_sim/processing'))['source'], 'simulator');
      await sim(t, 'POST', '/_sim/reset');
      assert.deepEqual((await sim(t, 'GET', '/_sim/faults'))['faults'], []);
      assert.deepEqual(await sim(t, 'GET', '/_sim/processing'), {
        delaySeconds: 0,
        source: 'config',
      });
      await sim(t, 'POST', '/_sim/processing', { delaySeconds: 601 }, 400);
    });
  });

  describe(`/_sim protection and production mode [${kind}]`, () => {
    it('requires the bearer token when SIM_ADMIN_TOKEN is set', async () => {
      const t = await startTestApp(kind, { simAdminToken: 's3cret-token' });
      try {
        const none = await t.app.inject({ method: 'GET', url: '/_sim/clock' });
        assert.equal(none.statusCode, 401);
        assert.match(String(none.headers['www-authenticate']), /^Bearer/);
        assert.equal(typeof none.json().message, 'string');
        const wrong = await t.app.inject({
          method: 'GET',
          url: '/_sim/clock',
          headers: { authorization: 'Bearer nope' },
        });
        assert.equal(wrong.statusCode, 403);
        const right = await t.app.inject({
          method: 'GET',
          url: '/_sim/clock',
          headers: { authorization: 'Bearer s3cret-token' },
        });
        assert.equal(right.statusCode, 200);
      } finally {
        await t.close();
      }
    });

    it('answers 404 on every /_sim route in production mode', async () => {
      const t = await startTestApp(kind, { mode: 'production' });
      try {
        for (const [method, url] of [
          ['GET', '/_sim/clock'],
          ['POST', '/_sim/clock/advance'],
          ['POST', '/_sim/reset'],
          ['GET', '/_sim/sms'],
          ['POST', '/_sim/faults'],
          ['POST', '/_sim/esims/8944000000000000000/install'],
        ] as const) {
          const res = await t.app.inject({
            method,
            url,
            payload: method === 'POST' ? {} : undefined,
          });
          assert.equal(res.statusCode, 404, `${method} ${url}`);
        }
        // Whatever the body: curl -d sends a form, others send text, broken or oversized JSON.
        for (const [type, payload] of [
          ['application/x-www-form-urlencoded', '{}'],
          ['text/plain', 'hello'],
          ['application/json', '{"seconds": '],
          ['application/xml', '<a/>'],
        ] as const) {
          for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
            const res = await t.app.inject({
              method,
              url: '/_sim/clock/advance',
              headers: { 'content-type': type },
              payload,
            });
            assert.equal(res.statusCode, 404, `${method} ${type}`);
            assert.equal(res.json().code, 'not_found');
          }
        }
        assert.equal(t.deps.simulator, undefined);
      } finally {
        await t.close();
      }
    });
  });
}
