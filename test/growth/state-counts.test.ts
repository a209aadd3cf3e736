import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import {
  FR_1MB,
  MB,
  assignmentsOf,
  buy,
  installAndAttach,
  restoreSnapshot,
  saveSnapshot,
  seedTestBundles,
  sim,
  use,
} from '../esim-fixtures.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { parseExposition } from '../prometheus-text.js';

// /metrics reads eSIMs by profile status and assignments by state from counters kept with the
// rows (023, 034), not by counting the tables. They stay exact through concurrent orders,
// provisioning, activation, depletion, revokes, expiry and deletions: every figure equals a
// count of the rows themselves.

const DAY = 86_400;

/** The gauge's samples by label value, zeros left out. */
function gauge(text: string, name: string, label: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of parseExposition(text).samples) {
    const key = s.labels[label];
    if (s.name === name && key !== undefined && s.value !== 0) out[key] = s.value;
  }
  return out;
}

/** The same figures counted from the rows: eSIMs in their lists, every assignment. */
async function counted(t: TestApp): Promise<{ esims: object; assignments: object }> {
  const db = t.deps.store.db;
  const tally = (rows: { k: string; n: number | string }[]) =>
    Object.fromEntries(rows.map((r) => [r.k, Number(r.n)]));
  const esims = await sql<{ k: string; n: number | string }>`
    select profile_status as k, count(*) as n from esims where seq is not null
    group by profile_status`.execute(db);
  const assignments = await sql<{ k: string; n: number | string }>`
    select state as k, count(*) as n from assignments group by state`.execute(db);
  return { esims: tally(esims.rows), assignments: tally(assignments.rows) };
}

async function reported(t: TestApp): Promise<{ esims: object; assignments: object }> {
  // Past the one-second figure cache.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const res = await t.app.inject({ url: '/metrics' });
  assert.equal(res.statusCode, 200);
  return {
    esims: gauge(res.body, 'esim_esims', 'profile_status'),
    assignments: gauge(res.body, 'esim_bundle_assignments', 'state'),
  };
}

for (const kind of DATABASES) {
  describe(`eSIM and assignment totals in /metrics [${kind}]`, () => {
    it('match the rows through concurrent orders, the lifecycle, revokes and deletions', async () => {
      const t = await startTestApp(kind);
      try {
        await seedTestBundles(t);
        const orgs: TestOrg[] = [
          await t.createOrg({ balance: 1_000_000 }),
          await t.createOrg({ balance: 1_000_000 }),
        ];
        // Orders onto new eSIMs from both organisations at once, then more onto the first ones.
        const bought = await Promise.all(
          orgs.flatMap((org) => [1, 2, 3].map(() => buy(t, org, FR_1MB.name))),
        );
        const [a, b] = orgs as [TestOrg, TestOrg];
        const first = bought[0]?.iccids[0] ?? '';
        const second = bought[1]?.iccids[0] ?? '';
        const other = bought[3]?.iccids[0] ?? '';
        await Promise.all([
          buy(t, a, FR_1MB.name, { iccids: [first] }),
          buy(t, a, FR_1MB.name, { iccids: [first] }),
          buy(t, b, FR_1MB.name, { iccids: [other] }),
        ]);
        const early = {
          counted: await counted(t),
          snapshot: await saveSnapshot(t),
        };
        assert.deepEqual(await reported(t), early.counted);

        // Installed, attached and used up: one Active then Depleted, the next one Active.
        await installAndAttach(t, first);
        await installAndAttach(t, other);
        await use(t, first, MB);
        await use(t, first, MB / 2);
        await use(t, other, MB / 4);
        // A queued assignment revoked; an eSIM with nothing live deleted.
        const queued = (await assignmentsOf(t, a, first)).find(
          (r) => r.assignment.bundleState === 'Queued',
        );
        assert.ok(queued !== undefined);
        const revoked = await t.request(a.apiKey, {
          method: 'DELETE',
          url: `/v2.1/esims/${first}/bundles/${FR_1MB.name}/assignments/${queued.assignment.id}`,
        });
        assert.equal(revoked.statusCode, 200, revoked.body);
        const [own] = await assignmentsOf(t, a, second);
        assert.ok(own !== undefined);
        await t.request(a.apiKey, {
          method: 'DELETE',
          url: `/v2.1/esims/${second}/bundles/${FR_1MB.name}/assignments/${own.assignment.id}`,
        });
        const deleted = await t.request(a.apiKey, {
          method: 'DELETE',
          url: `/v2.5/esims/${second}`,
        });
        assert.equal(deleted.statusCode, 200, deleted.body);
        const now = await counted(t);
        assert.deepEqual(await reported(t), now);
        assert.ok(Object.keys(now.assignments).length >= 4, JSON.stringify(now));

        // A month on: the active bundles end, the queued ones lapse.
        await sim(t, 'POST', '/_sim/clock/advance', { seconds: 400 * DAY });
        const later = await counted(t);
        assert.deepEqual(await reported(t), later);
        assert.ok('Expired' in later.assignments, JSON.stringify(later));

        // The snapshot taken after the first orders, restored: the counters go back with the rows.
        await restoreSnapshot(t, early.snapshot);
        assert.deepEqual(await counted(t), early.counted);
        assert.notDeepEqual(early.counted, later);
        assert.deepEqual(await reported(t), early.counted);
      } finally {
        await t.close();
      }
    });
  });
}
