import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { loadFixture } from '../../src/domain/simulator/fixture-load.js';
import { checkFixture, readFixtureFile } from '../../src/domain/simulator/fixture-file.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp } from '../harness.js';

// Fixtures and snapshots through HTTP on every database: a fixture file makes organisations with
// fixed keys, balances, users and eSIMs whose bundles are in the states it names; GET
// /_sim/snapshot saves everything, clock included, and PUT /_sim/snapshot puts it back;
// POST /_sim/reset?toSeed=true returns to the fixture's state.

const SEED = fileURLToPath(new URL('../fixtures/seed.json', import.meta.url));
const SEED_YAML = fileURLToPath(new URL('../fixtures/seed.yaml', import.meta.url));
const ACME = 'esim_AcmeTravelFixtureKey00000000000000000000001';
const GLOBEX = 'esim_GlobexIoTFixtureKey000000000000000000000002';
const MEDIA = 'application/vnd.esim.snapshot+json';

interface BundleBody {
  bundles: { name: string; assignments: { bundleState: string; remainingQuantity: number }[] }[];
}

for (const kind of DATABASES) {
  describe(`fixtures and snapshots [${kind}]`, () => {
    let t: TestApp;
    let iccids: readonly string[] = [];

    before(async () => {
      t = await startTestApp(kind, { seedFile: SEED });
      const loaded = await loadFixture(t.deps, readFixtureFile(SEED));
      assert.ok(loaded !== undefined);
      iccids = loaded[0]?.iccids ?? [];
    });
    after(() => t.close());

    const states = async (iccid: string): Promise<string[]> => {
      const res = await t.request(ACME, { url: `/v2.1/esims/${iccid}/bundles` });
      assert.equal(res.statusCode, 200, res.body);
      return res
        .json<BundleBody>()
        .bundles.flatMap((b) => b.assignments.map((a) => a.bundleState))
        .sort();
    };

    it('loads organisations with their fixed keys, balances, settings, users and eSIMs', async () => {
      const acme = await t.request(ACME, { url: '/v2.1/organisation' });
      assert.equal(acme.statusCode, 200);
      const org = acme.json<{ organisations: Record<string, unknown>[] }>().organisations[0];
      assert.equal(org?.['name'], 'Acme Travel');
      assert.deepEqual(org?.['groups'], ['Standard eSIM Bundles']);
      assert.equal(org?.['callbackVersion'], 'V3');
      assert.equal(org?.['callbackUrl'], 'https://acme.example/esim-callbacks');
      assert.deepEqual(
        (org?.['users'] as { emailAddress: string; role: string }[]).map((u) => [
          u.emailAddress,
          u.role,
        ]),
        [['ada@acme.example', 'Admin']],
      );
      // 50,000 less the five bundles the eSIMs were given.
      const price = (
        await t.request(ACME, { url: '/v2.1/catalogue/bundle/esim_1GB_7D_FR_V2' })
      ).json<{ price: number }>().price;
      assert.equal(org?.['balance'], 50_000 - 4 * price);
      const globex = await t.request(GLOBEX, { url: '/v2.1/organisation' });
      assert.equal(
        globex.json<{ organisations: { balance: number }[] }>().organisations[0]?.balance,
        1000,
      );
      assert.equal(iccids.length, 2);
      assert.deepEqual(await states(iccids[0] ?? ''), ['Queued']);
      assert.deepEqual(await states(iccids[1] ?? ''), ['Active', 'Depleted', 'Queued']);
      const esim = (await t.request(ACME, { url: `/v2.1/esims/${iccids[1]}` })).json<{
        customerRef?: string;
      }>();
      assert.equal(esim.customerRef, 'fleet-2');
    });

    it('refuses a fixture with clear messages naming the field', () => {
      assert.throws(
        () =>
          checkFixture(
            { organisations: [{ name: 'A', apiKey: 'short', balance: -1 }] },
            'seed.json',
          ),
        /seed\.json: organisations\/0\/apiKey: Expected string to match .*; organisations\/0\/balance: .* 0$/,
      );
      assert.throws(
        () =>
          checkFixture(
            {
              organisations: [
                {
                  name: 'A',
                  esims: [
                    {
                      bundles: [
                        { name: 'x', state: 'Queued' },
                        { name: 'x', state: 'Depleted' },
                      ],
                    },
                  ],
                },
              ],
            },
            'seed.json',
          ),
        /organisations\/0\/esims\/0\/bundles\/1\/state: Depleted cannot follow/,
      );
      assert.throws(
        () => checkFixture({ organizations: [] }, 'seed.json'),
        /seed\.json: .*organisations/,
      );
    });

    it('reads a YAML fixture as its JSON twin, and names the field and line of a mistake', () => {
      assert.deepEqual(readFixtureFile(SEED_YAML), readFixtureFile(SEED));
      const dir = mkdtempSync(join(tmpdir(), 'esim-fixture-'));
      try {
        const file = join(dir, 'seed.yml');
        const wrong = (text: string) => {
          writeFileSync(file, text);
          return () => readFixtureFile(file);
        };
        assert.throws(
          wrong('organisations:\n  - name: A\n    balance: lots\n'),
          /seed\.yml: organisations\/0\/balance \(line 3\): Expected integer/,
        );
        assert.throws(
          wrong(
            'organisations:\n  - name: A\n    esims:\n      - bundles:\n' +
              '          - { name: x }\n          - { name: x, state: Depleted }\n',
          ),
          /organisations\/0\/esims\/0\/bundles\/1\/state \(line 6\): Depleted cannot follow/,
        );
        assert.throws(
          wrong('organisations:\n  - name: A\n    colour: blue\n'),
          /organisations\/0\/colour \(line 3\): Unexpected property/,
        );
        assert.throws(
          wrong('organisations:\n  - name: [A\n'),
          /seed\.yml: not valid YAML \(line \d+, column \d+: /,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('saves the whole state and restores it, clock included', async () => {
      const saved = await t.app.inject({ url: '/_sim/snapshot' });
      assert.equal(saved.statusCode, 200);
      assert.match(
        String(saved.headers['content-type']),
        /^application\/vnd\.esim\.snapshot\+json/,
      );
      const before = saved.json<{ clock: { offsetSeconds: number } }>();

      await t.app.inject({
        method: 'POST',
        url: '/_sim/clock/advance',
        payload: { seconds: 8 * 86_400 },
      });
      const order = await t.request(ACME, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: {
          type: 'transaction',
          assign: true,
          order: [{ type: 'bundle', item: 'esim_1GB_7D_FR_V2', quantity: 1 }],
        },
      });
      assert.equal(order.statusCode, 200);
      await t.app.inject({
        method: 'POST',
        url: '/_sim/faults',
        payload: { route: '/v2.1/esims', status: 503 },
      });

      const refused = await t.app.inject({
        method: 'PUT',
        url: '/_sim/snapshot',
        headers: { 'content-type': MEDIA },
        payload: JSON.stringify({ ...saved.json(), migrations: ['001-foundation'] }),
      });
      assert.equal(refused.statusCode, 400);
      assert.match(refused.json<{ message: string }>().message, /another schema version/);
      // A production service's record is never imported: the simulator would refuse its database.
      const snapshot = saved.json<{ tables: { sim_state?: { key: string; value: string }[] } }>();
      const stamped = {
        ...snapshot,
        tables: {
          ...snapshot.tables,
          sim_state: [
            ...(snapshot.tables.sim_state ?? []),
            { key: 'service_mode', value: 'production' },
          ],
        },
      };
      const production = await t.app.inject({
        method: 'PUT',
        url: '/_sim/snapshot',
        headers: { 'content-type': MEDIA },
        payload: JSON.stringify(stamped),
      });
      assert.equal(production.statusCode, 400, production.body);
      assert.match(production.json<{ message: string }>().message, /production service's record/);

      const restored = await t.app.inject({
        method: 'PUT',
        url: '/_sim/snapshot',
        headers: { 'content-type': MEDIA },
        payload: saved.body,
      });
      assert.equal(restored.statusCode, 200, restored.body);
      assert.deepEqual(restored.json<{ organisations: number; esims: number }>().organisations, 2);
      const clock = (await t.app.inject({ url: '/_sim/clock' })).json<{ offsetSeconds: number }>();
      assert.equal(clock.offsetSeconds, before.clock.offsetSeconds);
      const esims = await t.request(ACME, { url: '/v2.1/esims' });
      assert.equal(esims.statusCode, 200, 'the fault added after the snapshot is gone');
      assert.equal(esims.json<{ esims: unknown[] }>().esims.length, 2);
      const orders = (await t.request(ACME, { url: '/v2.1/orders' })).json<
        unknown[] | { orders: unknown[] }
      >();
      assert.equal(
        Array.isArray(orders) ? orders.length : orders.orders.length,
        4,
        'the order placed after the snapshot is gone',
      );
      assert.deepEqual(await states(iccids[1] ?? ''), ['Active', 'Depleted', 'Queued']);
      // The keys still sign and authenticate after the swap.
      assert.equal((await t.request(GLOBEX, { url: '/v2.1/organisation' })).statusCode, 200);
    });

    it('goes back to the fixture with reset?toSeed=true', async () => {
      await t.app.inject({
        method: 'POST',
        url: '/_sim/clock/advance',
        payload: { seconds: 3600 },
      });
      const reset = await t.app.inject({ method: 'POST', url: '/_sim/reset?toSeed=true' });
      assert.equal(reset.statusCode, 200, reset.body);
      const body = reset.json<{ organisations: { apiKey: string; iccids: string[] }[] }>();
      assert.deepEqual(
        body.organisations.map((o) => o.apiKey),
        [ACME, GLOBEX],
      );
      assert.equal(
        (await t.app.inject({ url: '/_sim/clock' })).json<{ offsetSeconds: number }>()
          .offsetSeconds,
        0,
      );
      const newIccid = body.organisations[0]?.iccids[1] ?? '';
      assert.deepEqual(await states(newIccid), ['Active', 'Depleted', 'Queued']);
      const orders = (await t.request(ACME, { url: '/v2.1/orders' })).json<
        unknown[] | { orders: unknown[] }
      >();
      assert.equal(Array.isArray(orders) ? orders.length : orders.orders.length, 4);
    });

    it('saves one moment of the database while orders are being placed', async () => {
      type Row = Record<string, unknown>;
      // Three loops place orders to inventory while snapshots are taken: each snapshot must show
      // every organisation's balance as its newest journal entry left it, and its order counters
      // as the orders it holds, whatever committed while the tables were being read.
      let placing = true;
      let placed = 0;
      const placers = Array.from({ length: 3 }, async () => {
        for (let n = 0; placing && n < 200; n += 1) {
          const res = await t.request(ACME, {
            method: 'POST',
            url: '/v2.1/orders',
            payload: {
              type: 'transaction',
              assign: false,
              order: [{ type: 'bundle', item: 'esim_1GB_7D_FR_V2', quantity: 1 }],
            },
          });
          assert.equal(res.statusCode, 200, res.body);
          placed += 1;
        }
      });
      const ordersSeen: number[] = [];
      try {
        for (let i = 0; i < 6; i += 1) {
          // Each snapshot after at least one more order, so orders land between and during them.
          const from = placed;
          while (placed === from) await new Promise((resolve) => setImmediate(resolve));
          const saved = await t.app.inject({ url: '/_sim/snapshot' });
          assert.equal(saved.statusCode, 200);
          const tables = saved.json<{ tables: Record<string, Row[]> }>().tables;
          const newest = new Map<string, Row>();
          for (const entry of tables['ledger_entries'] ?? []) {
            const org = String(entry['organisation_id']);
            const held = newest.get(org);
            if (held === undefined || Number(entry['seq']) > Number(held['seq']))
              newest.set(org, entry);
          }
          for (const org of tables['organisations'] ?? []) {
            const entry = newest.get(String(org['id']));
            if (entry !== undefined)
              assert.equal(org['balance'], entry['balance_after'], `snapshot ${i}: balance`);
          }
          const counted = new Map<string, number>();
          for (const order of tables['orders'] ?? []) {
            const key = `${String(order['organisation_id'])} orders:${String(order['source'])}`;
            counted.set(key, (counted.get(key) ?? 0) + 1);
          }
          const counters = new Map<string, number>();
          for (const c of tables['organisation_counts'] ?? []) {
            const name = String(c['name']);
            if (name.startsWith('orders:'))
              counters.set(`${String(c['organisation_id'])} ${name}`, Number(c['value']));
          }
          assert.deepEqual(counters, counted, `snapshot ${i}: order counters`);
          ordersSeen.push((tables['orders'] ?? []).length);
        }
      } finally {
        placing = false;
        await Promise.all(placers);
      }
      assert.ok(
        (ordersSeen.at(-1) ?? 0) > (ordersSeen[0] ?? 0),
        `orders were placed while the snapshots were taken: ${ordersSeen.join(', ')}`,
      );
    });
  });
}
