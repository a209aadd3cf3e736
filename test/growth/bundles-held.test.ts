import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { updateOrganisationSettings } from '../../src/domain/organisations/organisation-changes.js';
import { addBundles, fixtureBundle, GROUP, startFileBackedApp } from '../fixtures/orders.js';
import { buy, restoreSnapshot, saveSnapshot } from '../esim-fixtures.js';
import { DATABASES, restartedApp, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// What an organisation ever bought is one row per organisation and bundle (032-bundles-held),
// written by the batches' trigger: after its groups change, it still applies and checks a
// bundle it bought, whether the purchase came before the migration, through a snapshot, or
// after; a bundle of another group it never bought stays unknown to it.

const OPEN = 'esim_held_open_1GB_7D_GB_V2';
const PRIVATE = 'esim_held_private_1GB_7D_GB_V2';
const OTHER = 'esim_held_other_1GB_7D_GB_V2';

async function apply(
  request: TestApp['request'],
  org: TestOrg,
  name: string,
): Promise<{ status: number; code?: string }> {
  const res = await request(org.apiKey, {
    method: 'POST',
    url: '/v2.1/esims/apply',
    payload: { name },
  });
  return { status: res.statusCode, code: res.json<{ code?: string }>().code };
}

/** An organisation in both groups that bought two units of PRIVATE, then left its group. */
async function buyerLeftGroup(t: TestApp): Promise<TestOrg> {
  const org = await t.createOrg({ balance: 100_000, groups: [GROUP, 'Private Deals'] });
  await buy(t, org, PRIVATE, { quantity: 2, assign: false });
  return org;
}

async function setGroups(t: TestApp, org: TestOrg, groups: string[]): Promise<void> {
  const { clock, random, cipher, apiKeys } = t.deps;
  const deps = { db: t.deps.store.db, clock, random, cipher, apiKeys };
  await updateOrganisationSettings(deps, org.id, { groups });
}

const leaveGroup = (t: TestApp, org: TestOrg) => setGroups(t, org, [GROUP]);

const bundles = () => [
  fixtureBundle(OPEN, 100),
  fixtureBundle(PRIVATE, 100, { groups: ['Private Deals'] }),
  fixtureBundle(OTHER, 100, { groups: ['Private Deals'] }),
];

for (const kind of DATABASES) {
  describe(`bundles an organisation bought [${kind}]`, () => {
    it('applies a bundle it bought after leaving its group, and not one it never bought', async () => {
      const t = await startTestApp(kind);
      try {
        await addBundles(t, bundles());
        const org = await buyerLeftGroup(t);
        await leaveGroup(t, org);
        assert.deepEqual(await apply(t.request, org, PRIVATE), { status: 200, code: undefined });
        const never = await apply(t.request, org, OTHER);
        assert.equal(never.status, 400);
        assert.notEqual(never.code, 'insufficient_inventory');
      } finally {
        await t.close();
      }
    });

    it('follows a snapshot restored: what was bought then, and nothing bought since', async () => {
      // Without the built-in catalogue (thousands of rows) the snapshot is kilobytes.
      const t = await startTestApp(kind, { catalogueSeed: false });
      try {
        await addBundles(t, bundles());
        const org = await buyerLeftGroup(t);
        await leaveGroup(t, org);
        const bought = await saveSnapshot(t);
        // Back in the group, it buys OTHER too, then leaves again.
        await setGroups(t, org, [GROUP, 'Private Deals']);
        await buy(t, org, OTHER, { assign: false });
        await leaveGroup(t, org);
        assert.equal((await apply(t.request, org, OTHER)).status, 200);

        // The state before OTHER was bought: PRIVATE is known, OTHER is not (it was never bought).
        await restoreSnapshot(t, bought);
        assert.equal((await apply(t.request, org, PRIVATE)).status, 200);
        const other = await apply(t.request, org, OTHER);
        assert.equal(other.status, 400);
        assert.equal(other.code, 'unknown_bundle');
      } finally {
        await t.close();
      }
    });

    it('032 fills in the bundles bought before it', async () => {
      const f = await startFileBackedApp(kind);
      const { t } = f;
      try {
        await addBundles(t, bundles());
        const org = await buyerLeftGroup(t);
        await leaveGroup(t, org);
        // The database as it was before 032: no table, no trigger, the batches' bundle index.
        const db = t.deps.store.db;
        if (kind === 'sqlite') await sql`drop trigger inventory_batches_held`.execute(db);
        else await sql`drop function inventory_batches_held() cascade`.execute(db);
        await sql`drop table organisation_bundles`.execute(db);
        await sql`create index inventory_batches_bundle
          on inventory_batches (organisation_id, bundle_name)`.execute(db);
        await sql`delete from kysely_migration where name = '032-bundles-held'`.execute(db);

        // The next start runs 032 on that data.
        await restartedApp(t, async (app) => {
          const request: TestApp['request'] = (apiKey, options) =>
            app.inject({ ...options, headers: { ...options.headers, 'x-api-key': apiKey } });
          assert.equal((await apply(request, org, PRIVATE)).status, 200);
          assert.notEqual((await apply(request, org, OTHER)).status, 200);
        });
      } finally {
        await f.close();
      }
    });
  });
}
