import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Config } from '../../../config.js';
import { openStore } from '../../../store/database.js';
import type { Store } from '../../../store/database.js';
import {
  FR_1MB,
  FR_2MB,
  buy,
  getJson,
  seedTestBundles,
  sim,
} from '../../../../test/esim-fixtures.js';
import { DATABASES, startTestApp } from '../../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../../test/harness.js';
import type { DatabaseKind } from '../../../../test/databases.js';
import { ManualWallClock } from '../../../../test/manual-wall-clock.js';

// GET /esims/{iccid} may answer from memory (detail-cache.ts). Whatever this instance writes is
// in the very next answer; what another process writes to the same database is in the answers
// after ESIM_CACHE_MS on SQLite (measured on the injected wall clock, which the test moves), and
// at once on PostgreSQL, where the cache is off.

interface Details {
  customerRef: string;
  profileStatus: string;
  lastAction: string;
}

interface Setup {
  readonly t: TestApp;
  readonly wall: ManualWallClock;
  /** Another process's handle on the same database. */
  readonly elsewhere: Store;
  close(): Promise<void>;
}

async function setUp(kind: DatabaseKind, overrides: Partial<Config> = {}): Promise<Setup> {
  // A file, so that a second handle reaches the same SQLite database.
  const dir = mkdtempSync(join(tmpdir(), 'esim-detail-cache-'));
  const wall = new ManualWallClock();
  const t = await startTestApp(
    kind,
    kind === 'sqlite'
      ? { database: { kind: 'sqlite', path: join(dir, 'esim.sqlite') }, ...overrides }
      : overrides,
    { wallClock: wall },
  );
  const elsewhere = openStore(t.config.database, { busyWaitMs: t.config.sqliteBusyWaitMs });
  return {
    t,
    wall,
    elsewhere,
    async close() {
      await elsewhere.close();
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const setRefElsewhere = (s: Setup, iccid: string, ref: string): Promise<unknown> =>
  s.elsewhere.db
    .updateTable('esims')
    .set({ customer_ref: ref })
    .where('iccid', '=', iccid)
    .execute();

for (const kind of DATABASES) {
  describe(`GET /v2.1/esims/{iccid} answered from memory [${kind}]`, () => {
    let s: Setup;
    let t: TestApp;
    let org: TestOrg;
    before(async () => {
      s = await setUp(kind);
      t = s.t;
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000 });
    });
    after(() => s.close());

    const details = async (iccid: string): Promise<Details> =>
      (await getJson(t, org, `/v2.1/esims/${iccid}`)) as Details;

    it('shows every write of this instance in the next answer', async () => {
      const [iccid = ''] = (await buy(t, org, FR_1MB.name)).iccids;
      assert.equal((await details(iccid)).profileStatus, 'Released');
      assert.equal((await details(iccid)).customerRef, '');

      const put = await t.request(org.apiKey, {
        method: 'PUT',
        url: '/v2.1/esims',
        payload: { iccid, customerRef: 'fleet-1' },
      });
      assert.equal(put.statusCode, 200, put.body);
      assert.equal((await details(iccid)).customerRef, 'fleet-1');

      await sim(t, 'POST', `/_sim/esims/${iccid}/install`, {});
      const installed = await details(iccid);
      assert.equal(installed.profileStatus, 'Installed');
      assert.equal(installed.lastAction, 'eSIM Installed');

      // A second bundle onto the same eSIM, behind the first.
      await buy(t, org, FR_2MB.name, { iccids: [iccid] });
      const queued = await details(iccid);
      assert.equal(queued.lastAction, 'Bundle Queued');
      assert.equal(queued.customerRef, 'fleet-1');
    });

    it('sends a row held in memory as the bytes and headers the schema serialises', async () => {
      const [iccid = ''] = (await buy(t, org, FR_1MB.name)).iccids;
      const get = (url: string, method: 'GET' | 'HEAD' = 'GET') =>
        t.request(org.apiKey, { method, url });
      const first = await get(`/v2.1/esims/${iccid}`);
      const again = await get(`/v2.1/esims/${iccid}`);
      // With appleInstallUrl the body is an object that Fastify serialises for this request.
      const serialised = await get(`/v2.1/esims/${iccid}?additionalFields=appleInstallUrl`);
      for (const res of [first, again, serialised]) {
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      }
      assert.equal(again.body, first.body);
      assert.equal(again.headers['content-length'], String(Buffer.byteLength(first.body)));
      assert.notEqual(again.headers['x-request-id'], first.headers['x-request-id']);
      const { appleInstallUrl, ...rest } = JSON.parse(serialised.body) as Record<string, unknown>;
      assert.match(String(appleInstallUrl), /^https:\/\/esimsetup\.apple\.com\//);
      assert.equal(first.body, JSON.stringify(rest));

      const head = await get(`/v2.1/esims/${iccid}`, 'HEAD');
      assert.equal(head.statusCode, 200);
      assert.equal(head.body, '');
      assert.equal(head.headers['content-length'], again.headers['content-length']);

      // A field name it does not know is ignored: the same bytes.
      const unknown = await get(`/v2.1/esims/${iccid}?additionalFields=nope`);
      assert.equal(unknown.statusCode, 200, unknown.body);
      assert.equal(unknown.body, first.body);
    });

    it('another organisation gets a 404, also for a row held in memory', async () => {
      const [iccid = ''] = (await buy(t, org, FR_1MB.name)).iccids;
      await details(iccid);
      const stranger = await t.createOrg();
      const res = await t.request(stranger.apiKey, {
        method: 'GET',
        url: `/v2.1/esims/${iccid}`,
      });
      assert.equal(res.statusCode, 404, res.body);
    });

    it(
      kind === 'sqlite'
        ? "shows another process's write within ESIM_CACHE_MS"
        : "shows another process's write at once (no cache on PostgreSQL)",
      async () => {
        const [iccid = ''] = (await buy(t, org, FR_1MB.name)).iccids;
        assert.equal((await details(iccid)).customerRef, '');
        await setRefElsewhere(s, iccid, 'from-elsewhere');
        if (kind === 'sqlite') {
          assert.ok(t.config.esimCacheMs > 0, 'the cache is on by default');
          assert.equal((await details(iccid)).customerRef, '', 'still the answer in memory');
          s.wall.advance(t.config.esimCacheMs - 1);
          assert.equal((await details(iccid)).customerRef, '', 'inside the bound');
          s.wall.advance(1);
        }
        assert.equal((await details(iccid)).customerRef, 'from-elsewhere');
      },
    );
  });
}

describe('GET /v2.1/esims/{iccid} with ESIM_CACHE_MS=0 [sqlite]', () => {
  let s: Setup;
  let org: TestOrg;
  before(async () => {
    s = await setUp('sqlite', { esimCacheMs: 0 });
    await seedTestBundles(s.t);
    org = await s.t.createOrg({ balance: 100_000 });
  });
  after(() => s.close());

  it("reads the database on every request: another process's write shows at once", async () => {
    const [iccid = ''] = (await buy(s.t, org, FR_1MB.name)).iccids;
    const ref = async (): Promise<string> =>
      ((await getJson(s.t, org, `/v2.1/esims/${iccid}`)) as Details).customerRef;
    assert.equal(await ref(), '');
    await setRefElsewhere(s, iccid, 'from-elsewhere');
    assert.equal(await ref(), 'from-elsewhere');
  });
});
