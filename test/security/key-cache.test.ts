import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { OffsetClock } from '../../src/clock.js';
import type { AppDeps } from '../../src/deps.js';
import {
  rotateApiKey,
  updateOrganisationSettings,
} from '../../src/domain/organisations/organisation-changes.js';
import type { KeyChangeDeps } from '../../src/domain/organisations/organisation-changes.js';
import { openServices } from '../../src/main.js';
import type { Services } from '../../src/main.js';
import { openStore } from '../../src/store/database.js';
import type { FileBackedApp } from '../fixtures/orders.js';
import { startFileBackedApp } from '../fixtures/orders.js';
import { DATABASES } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// Authentication keeps the organisation of each key it has seen in memory
// (src/security/key-cache.ts). Two instances share one database: the one that rotates a key or
// changes an organisation stops serving what it remembered at once; the other notices within
// API_KEY_CACHE_MS, measured here on its own injected clock, which the test moves.

interface Instance {
  readonly app: FastifyInstance;
  readonly deps: AppDeps;
  readonly clock: OffsetClock;
  status(apiKey: string, url?: string): Promise<number>;
  close(): Promise<void>;
}

function instanceOf(app: FastifyInstance, deps: AppDeps, clock: OffsetClock): Instance {
  return {
    app,
    deps,
    clock,
    async status(apiKey, url = '/v2.1/organisation/groups') {
      const res = await app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey } });
      return res.statusCode;
    },
    close: () => app.close(),
  };
}

/** A second server process on the test app's database, with a clock of its own. */
async function secondInstance(t: TestApp): Promise<{ instance: Instance; services: Services }> {
  const clock = new OffsetClock();
  const store = openStore(t.config.database, { busyWaitMs: t.config.sqliteBusyWaitMs });
  const services = await openServices(t.config, { store, clock });
  const app = await buildApp(services.deps, { logLevel: 'silent' });
  await app.ready();
  return { instance: instanceOf(app, services.deps, clock), services };
}

const orgDeps = (deps: AppDeps): KeyChangeDeps => ({
  db: deps.store.db,
  clock: deps.clock,
  random: deps.random,
  cipher: deps.cipher,
  apiKeys: deps.apiKeys,
});

async function groupsOf(instance: Instance, apiKey: string): Promise<string[]> {
  const res = await instance.app.inject({
    method: 'GET',
    url: '/v2.1/organisation/groups',
    headers: { 'x-api-key': apiKey },
  });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { groups: { name: string }[] }).groups.map((g) => g.name);
}

for (const kind of DATABASES) {
  describe(`security: API keys remembered by two instances [${kind}]`, () => {
    let f: FileBackedApp;
    let a: Instance;
    let b: Instance;
    let bServices: Services;
    let boundSeconds: number;

    before(async () => {
      f = await startFileBackedApp(kind);
      a = instanceOf(f.t.app, f.t.deps, f.t.clock);
      const second = await secondInstance(f.t);
      b = second.instance;
      bServices = second.services;
      boundSeconds = f.t.config.apiKeyCacheMs / 1000;
      assert.ok(boundSeconds > 0, 'the cache is on by default');
    });
    after(async () => {
      await b.close();
      await bServices.close();
      await f.close();
    });

    const bothSee = async (org: TestOrg): Promise<void> => {
      assert.equal(await a.status(org.apiKey), 200);
      assert.equal(await b.status(org.apiKey), 200);
    };

    it('answers a known key from memory, without reading its row again', async () => {
      const org = await f.t.createOrg();
      await bothSee(org);
      // Written behind the service's back (no version change): only a lookup that skips the
      // database still finds the organisation by the old key.
      await f.t.deps.store.db
        .updateTable('organisations')
        .set({ api_key_hash: 'not-a-hash' })
        .where('id', '=', org.id)
        .execute();
      assert.equal(await a.status(org.apiKey), 200);
      a.clock.advance(boundSeconds);
      assert.equal(await a.status(org.apiKey), 200, 'nothing announced a change');
    });

    it('a rotation stops the old key at once where it ran, and within the bound elsewhere', async () => {
      const org = await f.t.createOrg();
      await bothSee(org);
      const rotated = await rotateApiKey(orgDeps(a.deps), org.id, 0);
      assert.equal(await a.status(org.apiKey), 403, 'the rotating instance forgot at once');
      assert.equal(await a.status(rotated.apiKey), 200);
      assert.equal(await b.status(org.apiKey), 200, 'still remembered inside the bound');
      b.clock.advance(boundSeconds);
      assert.equal(await b.status(org.apiKey), 403);
      assert.equal(await b.status(rotated.apiKey), 200);
      assert.equal(await b.status(org.apiKey, '/v2.1/catalogue'), 403);
    });

    it('a rotated-out key stops when its grace period ends, also when remembered', async () => {
      const org = await f.t.createOrg();
      b.clock.setOffset(a.clock.offset);
      const rotated = await rotateApiKey(orgDeps(a.deps), org.id, 60);
      await bothSee(org);
      assert.equal(await b.status(rotated.apiKey), 200);
      a.clock.advance(59);
      b.clock.advance(59);
      await bothSee(org);
      a.clock.advance(2);
      b.clock.advance(2);
      assert.equal(await a.status(org.apiKey), 403);
      assert.equal(await b.status(org.apiKey), 403);
      assert.equal(await b.status(rotated.apiKey), 200);
    });

    it('a change of groups reaches requests at once where made, within the bound elsewhere', async () => {
      const org = await f.t.createOrg({ groups: ['Standard eSIM Bundles'] });
      assert.deepEqual(await groupsOf(a, org.apiKey), ['Standard eSIM Bundles']);
      assert.deepEqual(await groupsOf(b, org.apiKey), ['Standard eSIM Bundles']);
      await updateOrganisationSettings(orgDeps(a.deps), org.id, { groups: ['Extra Group'] });
      assert.deepEqual(await groupsOf(a, org.apiKey), ['Extra Group']);
      assert.deepEqual(await groupsOf(b, org.apiKey), ['Standard eSIM Bundles']);
      b.clock.advance(boundSeconds);
      assert.deepEqual(await groupsOf(b, org.apiKey), ['Extra Group']);
    });

    it('GET /organisation shows the balance as it is now, not as remembered', async () => {
      const org = await f.t.createOrg({ balance: 5000 });
      const balance = async (instance: Instance): Promise<number> => {
        const res = await instance.app.inject({
          method: 'GET',
          url: '/v2.1/organisation',
          headers: { 'x-api-key': org.apiKey },
        });
        const [shown] = (res.json() as { organisations: { balance: number }[] }).organisations;
        assert.ok(shown !== undefined, res.body);
        return shown.balance;
      };
      assert.equal(await balance(b), 5000);
      await f.t.deps.store.db
        .updateTable('organisations')
        .set({ balance: 4000 })
        .where('id', '=', org.id)
        .execute();
      assert.equal(await balance(b), 4000);
    });
  });
}

for (const kind of DATABASES) {
  describe(`security: API_KEY_CACHE_MS=0 reads every key from the database [${kind}]`, () => {
    let f: FileBackedApp;
    before(async () => {
      f = await startFileBackedApp(kind, { apiKeyCacheMs: 0 });
    });
    after(() => f.close());

    it('sees a rotation made by another process on the next request', async () => {
      const org = await f.t.createOrg();
      const status = async (apiKey: string) =>
        (await f.t.request(apiKey, { method: 'GET', url: '/v2.1/organisation/groups' })).statusCode;
      assert.equal(await status(org.apiKey), 200);
      // As another process: its own key cache, which cannot tell this one to forget.
      const deps = f.t.deps;
      const elsewhere = {
        db: deps.store.db,
        clock: deps.clock,
        random: deps.random,
        cipher: deps.cipher,
        apiKeys: { forget: () => undefined },
      };
      await rotateApiKey(elsewhere, org.id, 0);
      assert.equal(await status(org.apiKey), 403);
    });
  });
}
