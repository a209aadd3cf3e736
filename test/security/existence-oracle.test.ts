import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { updateOrganisationSettings } from '../../src/domain/organisations/organisation-changes.js';
import { addBundles, fixtureBundle, GROUP } from '../fixtures/orders.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { buy } from '../esim-fixtures.js';

// Every route that names a bundle answers the same for a bundle that does not exist and for one
// that exists only in groups the caller cannot see, so a caller cannot probe the names of other
// organisations' (private, promotional) bundles. Before, POST /esims/apply answered
// unknown_bundle for the first and insufficient_inventory for the second.

const VISIBLE = 'esim_oracle_1GB_7D_GB_V2';
const HIDDEN = 'esim_oracle_private_1GB_7D_GB_V2';
const MISSING = 'esim_oracle_nothing_1GB_7D_GB_V2';

interface Answer {
  status: number;
  body: string;
}

/** The response with the bundle name replaced, so two answers can be compared whole. */
function shape(res: { statusCode: number; body: string }, name: string): Answer {
  return { status: res.statusCode, body: res.body.split(name).join('<bundle>') };
}

for (const kind of DATABASES) {
  describe(`security: no existence oracle for bundle names [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let iccid: string;

    before(async () => {
      t = await startTestApp(kind);
      await addBundles(t, [
        fixtureBundle(VISIBLE, 100),
        fixtureBundle(HIDDEN, 100, { groups: ['Private Deals'] }),
      ]);
      org = await t.createOrg({ name: 'Prober', balance: 100_000, groups: [GROUP] });
      const bought = await buy(t, org, VISIBLE, { assign: true });
      const [first] = bought.iccids;
      assert.ok(first !== undefined);
      iccid = first;
    });
    after(() => t.close());

    const both = async (
      send: (name: string) => Promise<{ statusCode: number; body: string }>,
    ): Promise<[Answer, Answer]> => [
      shape(await send(HIDDEN), HIDDEN),
      shape(await send(MISSING), MISSING),
    ];

    it('POST /v2.1/esims/apply, to a new eSIM and to an owned one', async () => {
      for (const extra of [{}, { iccid }]) {
        const [hidden, missing] = await both((name) =>
          t.request(org.apiKey, {
            method: 'POST',
            url: '/v2.1/esims/apply',
            payload: { name, ...extra },
          }),
        );
        assert.equal(hidden.status, 400, hidden.body);
        assert.deepEqual(hidden, missing);
        assert.match(hidden.body, /unknown_bundle/);
      }
    });

    it('POST /v2.1/orders, validate and transaction, with and without assign', async () => {
      for (const type of ['validate', 'transaction']) {
        for (const assign of [true, false]) {
          const [hidden, missing] = await both((name) =>
            t.request(org.apiKey, {
              method: 'POST',
              url: '/v2.1/orders',
              payload: { type, assign, order: [{ type: 'bundle', item: name, quantity: 1 }] },
            }),
          );
          assert.equal(hidden.status, 400, hidden.body);
          assert.deepEqual(hidden, missing);
        }
      }
    });

    it('GET /v2.1/catalogue/bundle/{name}, GET and DELETE under /v2.1/esims/{iccid}/bundles/{name}', async () => {
      const routes: ((name: string) => { method: 'GET' | 'DELETE'; url: string })[] = [
        (name) => ({ method: 'GET', url: `/v2.1/catalogue/bundle/${name}` }),
        (name) => ({ method: 'GET', url: `/v2.1/esims/${iccid}/bundles/${name}` }),
        (name) => ({ method: 'DELETE', url: `/v2.1/esims/${iccid}/bundles/${name}/assignments/1` }),
        (name) => ({ method: 'GET', url: `/v2.1/catalogue?description=${name}` }),
      ];
      for (const route of routes) {
        const [hidden, missing] = await both((name) => t.request(org.apiKey, route(name)));
        assert.deepEqual(hidden, missing, route('x').url);
        assert.notEqual(hidden.status, 500);
      }
    });

    it('still lets an organisation apply what it bought after its groups changed', async () => {
      const member = await t.createOrg({ balance: 10_000, groups: [GROUP, 'Private Deals'] });
      await buy(t, member, HIDDEN, { assign: false });
      const { clock, random, cipher } = t.deps;
      const deps = { db: t.deps.store.db, clock, random, cipher, apiKeys: t.deps.apiKeys };
      await updateOrganisationSettings(deps, member.id, { groups: [GROUP] });
      const applied = await t.request(member.apiKey, {
        method: 'POST',
        url: '/v2.1/esims/apply',
        payload: { name: HIDDEN },
      });
      assert.equal(applied.statusCode, 200, applied.body);
      // Its inventory is now empty: that is a shortage, not an unknown bundle.
      const again = await t.request(member.apiKey, {
        method: 'POST',
        url: '/v2.1/esims/apply',
        payload: { name: HIDDEN },
      });
      assert.equal(again.statusCode, 400);
      assert.equal(again.json().code, 'insufficient_inventory');
      // A visible bundle never bought is a shortage too.
      const visible = await t.request(member.apiKey, {
        method: 'POST',
        url: '/v2.1/esims/apply',
        payload: { name: VISIBLE },
      });
      assert.equal(visible.json().code, 'insufficient_inventory');
    });
  });
}
