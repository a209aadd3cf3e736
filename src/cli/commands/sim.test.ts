import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FR_1MB, assignmentsOf, buy, seedTestBundles } from '../../../test/esim-fixtures.js';
import { DATABASES, startTestApp } from '../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../test/harness.js';
import { main } from '../main.js';

for (const kind of DATABASES) {
  describe(`esim sim ... against a running server [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let url: string;
    const TOKEN = 'cli-token';

    before(async () => {
      t = await startTestApp(kind, { simAdminToken: TOKEN });
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000 });
      url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(() => t.close());

    const run = async (args: string[], token: string | null = TOKEN) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await main(
        [...args, '--url', url],
        token === null ? {} : { SIM_ADMIN_TOKEN: token },
        { out: (l) => out.push(l), err: (l) => err.push(l) },
      );
      return { code, out: out.join('\n'), err: err.join('\n') };
    };

    it('drives an eSIM from install to data use and reads the clock', async () => {
      const [iccid = ''] = (await buy(t, org, FR_1MB.name)).iccids;
      // Numbered before it reaches a network (which would number it in the country it attaches in).
      const msisdn = await run(['sim', 'msisdn', iccid, '--country', 'DE']);
      assert.match(JSON.parse(msisdn.out).msisdn, /^49/);
      assert.equal((await run(['sim', 'install', iccid])).code, 0);
      const attach = await run(['sim', 'attach', iccid, '--country', 'FR']);
      assert.equal(attach.code, 0, attach.err);
      assert.equal(JSON.parse(attach.out).country, 'FR');
      const usage = await run(['sim', 'usage', iccid, '--bytes', '250000']);
      assert.equal(JSON.parse(usage.out).consumedBytes, 250_000);
      const kept = await run(['sim', 'msisdn', iccid, '--country', 'FR']);
      assert.equal(JSON.parse(kept.out).msisdn, JSON.parse(msisdn.out).msisdn, 'the number stays');
      const clock = await run(['sim', 'clock']);
      assert.equal(clock.code, 0);
      const advanced = await run(['sim', 'advance', '--days', '31']);
      assert.equal(JSON.parse(advanced.out).expired, 1);
      assert.equal((await assignmentsOf(t, org, iccid))[0]?.assignment.bundleState, 'Expired');
      assert.equal((await run(['sim', 'sms', '--iccid', iccid])).code, 0);
      assert.equal((await run(['sim', 'reset'])).code, 0);
    });

    it('adds and clears faults and sets slow processing', async () => {
      const added = await run([
        'sim',
        'fault',
        '--route',
        '/orders',
        '--status',
        '503',
        '--count',
        '1',
      ]);
      assert.equal(added.code, 0, added.err);
      assert.equal(JSON.parse((await run(['sim', 'faults'])).out).faults.length, 1);
      assert.equal(JSON.parse((await run(['sim', 'faults', '--clear'])).out).removed, 1);
      const slow = await run(['sim', 'processing', '--delay-seconds', '300']);
      assert.equal(JSON.parse(slow.out).delaySeconds, 300);
      await run(['sim', 'reset']);
    });

    it('reports server refusals and usage mistakes with a non-zero exit code', async () => {
      const denied = await run(['sim', 'clock'], 'wrong');
      assert.equal(denied.code, 1);
      assert.match(denied.err, /403/);
      const missing = await run(['sim', 'clock'], null);
      assert.match(missing.err, /401/);
      const bad = await run(['sim', 'attach', '8944000000000000000', '--country', 'FR']);
      assert.equal(bad.code, 1);
      assert.match(bad.err, /400.*iccid/);
      assert.equal((await run(['sim', 'advance'])).code, 2);
      assert.equal((await run(['sim', 'usage'])).code, 2);
    });
  });
}
