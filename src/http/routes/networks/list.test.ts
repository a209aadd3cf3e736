import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';
import { runCli } from '../../../../test/fixtures/orders.js';

interface CountryNetworks {
  name: string;
  countryName: string;
  networks: {
    name: string;
    brandName: string;
    mcc: string;
    mnc: string;
    tagid: string;
    speed: string[];
  }[];
}

for (const kind of DATABASES) {
  describe(`GET /v2.1/networks [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      t = await startTestApp(kind, { catalogueSeed: false });
      org = await t.createOrg();
    });
    after(() => t.close());

    const networks = (query: string) =>
      t.request(org.apiKey, { method: 'GET', url: `/v2.1/networks${query}` });

    it('lists the radio networks of countries given by ISO code or name, in the order asked', async () => {
      const res = await networks('?isos=GB,fr&countries=united kingdom,France,DE');
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json().countryNetworks as CountryNetworks[];
      assert.deepEqual(
        body.map((c) => [c.name, c.countryName]),
        [
          ['GB', 'United Kingdom'],
          ['FR', 'France'],
          ['DE', 'Germany'],
        ],
      );
      const gb = body[0]?.networks ?? [];
      const o2 = gb.find((n) => n.mcc === '234' && n.mnc === '10');
      assert.deepEqual(o2?.brandName, 'O2 (UK)');
      assert.ok(o2 !== undefined && o2.name !== '');
      assert.ok(o2?.speed.includes('4G'));
      // Virtual operators ride on these networks: a visiting eSIM never registers on them.
      assert.equal(
        gb.some((n) => n.mcc === '234' && n.mnc === '01'),
        false,
        'Vectone Mobile (an MVNO) is not listed',
      );
      for (const c of body) {
        assert.ok(c.networks.length > 0, `${c.name} has networks`);
        for (const n of c.networks) {
          assert.match(n.mcc, /^\d{3}$/);
          assert.match(n.mnc, /^\d{2,3}$/);
          assert.equal(n.tagid, '');
          for (const s of n.speed) assert.ok(['2G', '3G', '4G', '5G'].includes(s));
        }
      }
      // The location of an eSIM names its network the way this list does.
      const orange = body[1]?.networks.find((n) => n.mcc === '208' && n.mnc === '01');
      assert.equal(orange?.brandName, 'Orange');
    });

    it('returnAll lists every country with a network', async () => {
      const res = await networks('?returnAll=true');
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json().countryNetworks as CountryNetworks[];
      assert.ok(body.length > 150, `${body.length} countries`);
      const isos = body.map((c) => c.name);
      assert.deepEqual(isos, [...isos].sort());
      assert.ok(isos.includes('US') && isos.includes('JP'));
    });

    it('names an unknown country, and asks for a filter when none is given', async () => {
      const bad = await networks('?isos=GB,XX');
      assert.equal(bad.statusCode, 400);
      assert.match(bad.json().message, /isos: "XX" is not an ISO 3166-1 alpha-2 code/);
      const badName = await networks('?countries=Atlantis');
      assert.equal(badName.statusCode, 400);
      assert.match(badName.json().message, /countries: "Atlantis"/);
      const none = await networks('');
      assert.equal(none.statusCode, 400);
      assert.match(none.json().message, /returnAll=true/);
      const off = await networks('?returnAll=false');
      assert.equal(off.statusCode, 400);
      const notBool = await networks('?returnAll=maybe');
      assert.equal(notBool.statusCode, 400);
      assert.match(notBool.json().message, /returnAll/);
    });

    it('esim networks prints the same', async () => {
      const env = { MODE: 'simulator', LOG_LEVEL: 'silent' };
      const api = (await networks('?isos=GB,FR')).json();
      const json = await runCli(['networks', '--isos', 'GB,FR', '--json'], env);
      assert.equal(json.code, 0, json.err);
      assert.deepEqual(JSON.parse(json.out), api);
      const text = await runCli(['networks', '--countries', 'France'], env);
      assert.equal(text.code, 0, text.err);
      assert.match(text.out, /^FR {2}France$/m);
      assert.match(text.out, /^ {2}20801 {2}Orange /m);
      assert.equal((await runCli(['networks'], env)).code, 2);
      const bad = await runCli(['networks', '--isos', 'XX'], env);
      assert.equal(bad.code, 1);
      assert.match(bad.err, /"XX" is not an ISO 3166-1 alpha-2 code/);
    });

    it('needs a valid API key', async () => {
      const res = await t.request('esim_wrong', { method: 'GET', url: '/v2.1/networks?isos=GB' });
      assert.equal(res.statusCode, 403);
    });
  });
}
