import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FR_1MB, buy, installAndAttach, seedTestBundles, sim } from '../esim-fixtures.js';
import { addBundles, fixtureBundle } from '../fixtures/orders.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// Details of the wire that client code written for the live service relies on, each through
// the version paths that code calls (docs/versions.md, "Wire details").

const LATER = ['2.2', '2.3', '2.4', '2.5'];
const ALPHA = 'test_wire_alpha_1GB';
const BETA = 'test_wire_beta_1GB';

for (const kind of DATABASES) {
  describe(`wire details of real client code [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      await addBundles(t, [fixtureBundle(ALPHA, 500), fixtureBundle(BETA, 700)]);
      org = await t.createOrg({ balance: 1_000_000 });
    });
    after(() => t.close());

    it('an empty iccid in the flat quick-start body issues a new eSIM, on every later version', async () => {
      for (const version of LATER) {
        const res = await t.request(org.apiKey, {
          method: 'POST',
          url: `/v${version}/orders`,
          payload: { type: 'transaction', quantity: 1, item: FR_1MB.name, assign: true, iccid: '' },
        });
        assert.equal(res.statusCode, 200, `v${version}: ${res.body}`);
        const [line] = res.json<{ order: { iccids?: string[] }[] }>().order;
        assert.equal(line?.iccids?.length, 1, `v${version}: one new eSIM`);
        assert.match(line?.iccids?.[0] ?? '', /^89\d{17}$/);
        // The same body as a validation, and with assign: false (into inventory).
        for (const body of [
          { type: 'validate', item: FR_1MB.name, assign: true, iccid: '' },
          { type: 'transaction', item: FR_1MB.name, assign: false, iccid: '' },
        ]) {
          const more = await t.request(org.apiKey, {
            method: 'POST',
            url: `/v${version}/orders`,
            payload: body,
          });
          assert.equal(more.statusCode, 200, `v${version} ${JSON.stringify(body)}: ${more.body}`);
        }
      }
      // An iccid that is given is still checked.
      const wrong = await t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.5/orders',
        payload: { type: 'transaction', item: FR_1MB.name, assign: true, iccid: '1234' },
      });
      assert.equal(wrong.statusCode, 400);
      assert.deepEqual(wrong.json(), {
        message:
          'body field iccid "1234" is not an ICCID: expected 19 digits starting 89 with a valid Luhn check digit',
        code: 'invalid_iccid',
      });
    });

    it('additionalFields names it does not know are ignored, never a 400', async () => {
      const { orderReference, iccids } = await buy(t, org, FR_1MB.name);
      const [iccid = ''] = iccids;
      for (const version of LATER) {
        for (const fields of ['qrCode', 'qrCode,appleInstallUrl']) {
          const res = await t.request(org.apiKey, {
            url: `/v${version}/esims/assignments?reference=${orderReference}&additionalFields=${fields}`,
            headers: { accept: 'application/json' },
          });
          assert.equal(res.statusCode, 200, `v${version} ${fields}: ${res.body}`);
          const [entry] = res.json<Record<string, string>[]>();
          assert.equal(entry?.['iccid'], iccid);
          assert.equal(entry?.['qrCode'], undefined);
          assert.equal('appleInstallUrl' in (entry ?? {}), fields.includes('apple'));
        }
      }
      for (const version of ['2.1', ...LATER]) {
        const res = await t.request(org.apiKey, {
          url: `/v${version}/esims/${iccid}?additionalFields=qrCode`,
        });
        assert.equal(res.statusCode, 200, `v${version}: ${res.body}`);
        assert.equal(res.json<{ iccid: string }>().iccid, iccid);
      }
    });

    it('an installed, attached data eSIM has a number and takes an SMS, answered per version', async () => {
      const { iccids } = await buy(t, org, FR_1MB.name, { quantity: 2 });
      const [attached = '', never = ''] = iccids;
      const msisdn = async (iccid: string) =>
        (await t.request(org.apiKey, { url: `/v2.5/esims/${iccid}` })).json<{ msisdn: string }>()
          .msisdn;
      assert.equal(await msisdn(attached), '');
      await installAndAttach(t, attached, 'FR');
      const number = await msisdn(attached);
      assert.match(number, /^33\d{9}$/, 'numbered by the network it first attached to');
      // A second attach elsewhere keeps the number.
      await sim(t, 'POST', `/_sim/esims/${attached}/attach`, { country: 'DE' });
      assert.equal(await msisdn(attached), number);
      const answers = new Map([
        ['2.1', { message: 'Message sent' }],
        ['2.2', { message: 'Message sent' }],
        ['2.3', { message: 'Message sent' }],
        ['2.4', { status: 'sent' }],
        ['2.5', { status: 'sent' }],
      ]);
      for (const [version, answer] of answers) {
        const res = await t.request(org.apiKey, {
          method: 'POST',
          url: `/v${version}/esims/${attached}/sms`,
          payload: { message: `low data (v${version})` },
        });
        assert.equal(res.statusCode, 200, `v${version}: ${res.body}`);
        assert.deepEqual(res.json(), answer, `v${version}`);
      }
      const outbox = await sim(t, 'GET', `/_sim/sms?iccid=${attached}`);
      const messages = outbox['messages'] as { msisdn: string }[];
      assert.equal(messages.length, answers.size);
      assert.ok(messages.every((m) => m.msisdn === number));
      // An eSIM that never reached a network has no number yet: the spec's rule still holds.
      const refused = await t.request(org.apiKey, {
        method: 'POST',
        url: `/v2.4/esims/${never}/sms`,
        payload: { message: 'hello' },
      });
      assert.equal(refused.statusCode, 400);
      assert.equal(refused.json<{ code: string }>().code, 'no_msisdn');
    });

    it('v2.1 filters the catalogue by bundle name with filter and filterBy=bundleName', async () => {
      const names = async (query: string, version = '2.1') => {
        const res = await t.request(org.apiKey, { url: `/v${version}/catalogue?${query}` });
        assert.equal(res.statusCode, 200, `${query}: ${res.body}`);
        const body = res.json<{ name: string }[] | { bundles: { name: string }[] }>();
        return (Array.isArray(body) ? body : body.bundles).map((b) => b.name);
      };
      assert.deepEqual(await names('filter=wire_alpha&filterBy=bundleName'), [ALPHA]);
      assert.deepEqual(await names('filter=*WIRE_*_1gb&filterBy=bundleName&orderBy=bundleName'), [
        ALPHA,
        BETA,
      ]);
      assert.deepEqual(await names('filter=test_wire&filterBy=bundleName&direction=desc'), [
        BETA,
        ALPHA,
      ]);
      // bundleName is the only field: filter alone means it.
      assert.deepEqual(await names('filter=wire_beta'), [BETA]);
      const res = await t.request(org.apiKey, { url: '/v2.1/catalogue?filter=x&filterBy=price' });
      assert.equal(res.statusCode, 400);
      assert.match(res.json<{ message: string }>().message, /filterBy/);
      // v2.2 and v2.3 build on v2.1: the same filter, with the live `eq:` for a whole name.
      assert.deepEqual(await names(`filter=eq:${BETA}&filterBy=bundleName`, '2.3'), [BETA]);
      assert.deepEqual(await names('filter=eq:test_wire&filterBy=bundleName', '2.2'), []);
    });
  });
}
