import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp } from '../harness.js';

// POST /_sim/reset?toSeed=true under SIM_SEED goes back to the very same state every time, also
// while other requests draw identifiers meanwhile, and no request ever sees the database half
// reset: emptying and loading the fixture again is one transaction.

const SEED = fileURLToPath(new URL('../fixtures/seed.json', import.meta.url));
const ACME = 'esim_AcmeTravelFixtureKey00000000000000000000001';

// What the fixture writes, with ids drawn (ICCIDs, references, organisation ids) and numbered
// (ledger, history, batches, audit).
const SEEDED_TABLES = [
  'organisations',
  'esims',
  'orders',
  'order_items',
  'assignments',
  'inventory_batches',
  'ledger_entries',
  'esim_history',
  'audit_log',
];

interface ResetBody {
  organisations: { id: string; name: string; apiKey: string; iccids: string[] }[];
}

for (const kind of DATABASES) {
  describe(`reset to the seed under SIM_SEED [${kind}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(kind, { seedFile: SEED, simSeed: 7, seedIdentifiers: true });
    });
    after(() => t.close());

    const reset = async (): Promise<ResetBody> => {
      const res = await t.app.inject({ method: 'POST', url: '/_sim/reset?toSeed=true' });
      assert.equal(res.statusCode, 200, res.body);
      return res.json<ResetBody>();
    };
    const addFault = () =>
      t.app.inject({
        method: 'POST',
        url: '/_sim/faults',
        payload: { route: '/v2.1/nowhere', method: 'GET', status: 500 },
      });
    // The seeded state as GET /_sim/snapshot shows it, the times left out (the clock runs on).
    const state = async (): Promise<Record<string, string[]>> => {
      const res = await t.app.inject({ url: '/_sim/snapshot' });
      assert.equal(res.statusCode, 200);
      const tables = res.json<{ tables: Record<string, unknown[]> }>().tables;
      return Object.fromEntries(
        SEEDED_TABLES.map((name) => [
          name,
          (tables[name] ?? [])
            .map((row) => JSON.stringify(row).replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'T'))
            .sort(),
        ]),
      );
    };

    it('draws the same ids while other requests draw theirs, and is never seen half done', async () => {
      const quiet = await reset();
      const quietState = await state();
      assert.equal(quiet.organisations[0]?.iccids.length, 2);
      assert.equal(quietState['esims']?.length, 2);

      // While the reset runs: fault additions draw an id each from the same source, and reads
      // with the fixture's key look at the eSIMs.
      let resetting = true;
      const seen: string[] = [];
      const drawn: string[] = [];
      const noise = (async () => {
        while (resetting) {
          const [added, read] = await Promise.all([
            addFault(),
            t.request(ACME, { url: '/v2.1/esims' }),
          ]);
          assert.equal(added.statusCode, 200, added.body);
          drawn.push(added.json<{ id: string }>().id);
          seen.push(
            read.statusCode === 200
              ? `200 with ${read.json<{ esims: unknown[] }>().esims.length} eSIMs`
              : `${read.statusCode}`,
          );
        }
      })();
      const busy = await reset().finally(() => {
        resetting = false;
      });
      await noise;

      assert.ok(seen.length > 0);
      assert.deepEqual(
        [...new Set(seen)],
        ['200 with 2 eSIMs'],
        'every read during the reset saw the whole seeded state',
      );
      assert.deepEqual(busy, quiet);
      assert.deepEqual(await state(), quietState);

      // The ids drawn during the reset are not drawn again afterwards. A fault added before the
      // reset began is emptied by it, and its id may come back (the sequence starts again, as
      // on a first start); the faults still there were added while the reset ran or after it.
      const listed = await t.app.inject({ url: '/_sim/faults' });
      const kept = new Set(listed.json<{ faults: { id: string }[] }>().faults.map((f) => f.id));
      const during = drawn.filter((id) => kept.has(id));
      for (let n = 0; n < drawn.length; n += 1) {
        const added = await addFault();
        assert.equal(added.statusCode, 200, added.body);
        assert.ok(!during.includes(added.json<{ id: string }>().id), 'a fault id drawn twice');
        kept.add(added.json<{ id: string }>().id);
      }
      assert.equal((await t.app.inject({ method: 'DELETE', url: '/_sim/faults' })).statusCode, 200);
    });

    it('carries on with the sequence of a first start after the fixture', async () => {
      const order = async (): Promise<string> => {
        const res = await t.request(ACME, {
          method: 'POST',
          url: '/v2.1/orders',
          payload: {
            type: 'transaction',
            assign: true,
            order: [{ type: 'bundle', item: 'esim_1GB_7D_FR_V2', quantity: 1 }],
          },
        });
        assert.equal(res.statusCode, 200, res.body);
        return res.json<{ order: { iccids: string[] }[] }>().order[0]?.iccids[0] ?? '';
      };
      await reset();
      const first = await order();
      await reset();
      assert.equal(await order(), first);
    });
  });
}
