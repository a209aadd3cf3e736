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
import { startFileBackedApp } from '../fixtures/orders.js';
import { DATABASES, restartedApp, startTestApp } from '../harness.js';
import { ManualWallClock } from '../manual-wall-clock.js';
import type { TestApp, TestOrg } from '../harness.js';
import { parseExposition } from '../prometheus-text.js';
import { statementsOf } from '../query-plan.js';
import { foldCountDeltas } from '../../src/store/repositories/count-repository.js';
import { readBusinessFigures } from '../../src/store/repositories/metrics-repository.js';

// /metrics reads eSIMs by profile status and assignments by state from counters kept with the
// rows (023, 034), not by counting the tables. They stay exact through concurrent orders,
// provisioning, activation, depletion, revokes, expiry and deletions: every figure equals a
// count of the rows themselves. On PostgreSQL the assignment counters take changes through
// count_deltas (035), folded in later: the figures are the same before and after a fold.

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

/** Changes to the counters not folded yet (PostgreSQL; SQLite keeps none). */
async function unfolded(t: TestApp): Promise<number> {
  if (t.deps.store.dialect !== 'postgres') return 0;
  const { rows } = await sql<{ n: number | string }>`
    select count(*) as n from count_deltas`.execute(t.deps.store.db);
  return Number(rows[0]?.n ?? 0);
}

/** /metrics equals the rows, then, on PostgreSQL, equals them again once the changes are folded. */
async function reportedAsCounted(t: TestApp): Promise<{ esims: object; assignments: object }> {
  const rows = await counted(t);
  assert.deepEqual(await reported(t), rows);
  if (t.deps.store.dialect === 'postgres') {
    assert.ok((await unfolded(t)) > 0, 'the changes went through count_deltas');
    assert.ok((await foldCountDeltas(t.deps.store.db, 'postgres')) > 0);
    assert.equal(await unfolded(t), 0);
    assert.deepEqual(await reported(t), rows);
  }
  return rows;
}

async function reported(t: TestApp): Promise<{ esims: object; assignments: object }> {
  // Past the one-second figure cache, on the app's wall clock.
  const wall = t.deps.wallClock;
  assert.ok(wall instanceof ManualWallClock);
  wall.advance(1000);
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
      // Without the built-in catalogue (thousands of rows) the snapshot is kilobytes.
      const t = await startTestApp(
        kind,
        { catalogueSeed: false },
        { wallClock: new ManualWallClock() },
      );
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
          counted: await reportedAsCounted(t),
          snapshot: await saveSnapshot(t),
        };

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
        const now = await reportedAsCounted(t);
        assert.ok(Object.keys(now.assignments).length >= 4, JSON.stringify(now));

        // A month on: the active bundles end, the queued ones lapse.
        await sim(t, 'POST', '/_sim/clock/advance', { seconds: 400 * DAY });
        const later = await reportedAsCounted(t);
        assert.ok('Expired' in later.assignments, JSON.stringify(later));

        // The snapshot taken after the first orders, restored: the counters go back with the rows
        // (counted again from them; on PostgreSQL the restore's own changes are not kept as deltas).
        await restoreSnapshot(t, early.snapshot);
        assert.deepEqual(await counted(t), early.counted);
        assert.notDeepEqual(early.counted, later);
        assert.equal(await unfolded(t), 0);
        assert.deepEqual(await reported(t), early.counted);
      } finally {
        await t.close();
      }
    });

    it('stay exact while changes are folded during concurrent orders', async () => {
      const t = await startTestApp(kind, {}, { wallClock: new ManualWallClock() });
      try {
        await seedTestBundles(t);
        const org = await t.createOrg({ balance: 1_000_000 });
        let ordering = true;
        let folded = 0;
        // Two fold loops, as two instances run them: one skips its turn while the other folds.
        const foldLoop = async () => {
          while (ordering) {
            folded += await foldCountDeltas(t.deps.store.db, t.deps.store.dialect);
            await new Promise((resolve) => setImmediate(resolve));
          }
        };
        const folding = Promise.all([foldLoop(), foldLoop()]);
        try {
          await Promise.all(
            Array.from({ length: 4 }, async () => {
              for (let i = 0; i < 6; i += 1) await buy(t, org, FR_1MB.name);
            }),
          );
        } finally {
          ordering = false;
          await folding;
        }
        // On PostgreSQL folds ran while orders were being placed; what is left is folded now.
        if (kind === 'postgres') assert.ok(folded > 0, 'changes were folded during the orders');
        await foldCountDeltas(t.deps.store.db, t.deps.store.dialect);
        const rows = await counted(t);
        assert.deepEqual(rows.assignments, { Queued: 24 });
        assert.deepEqual(await reported(t), rows);
      } finally {
        await t.close();
      }
    });

    it('/metrics reads assignments only for the oldest due ones, never to count them', async () => {
      const t = await startTestApp(kind, {}, { wallClock: new ManualWallClock() });
      try {
        const statements = await statementsOf(t.deps.store.db, (d) =>
          readBusinessFigures(d, kind, '2026-01-01T00:00:00.000Z'),
        );
        const reads = statements.filter((s) => s.sql.includes('"assignments"'));
        assert.equal(reads.length, 3, JSON.stringify(reads.map((s) => s.sql)));
        for (const s of reads)
          assert.match(s.sql, /min\("(processing_due_at|end_time|valid_until)"\)/);
      } finally {
        await t.close();
      }
    });

    if (kind === 'postgres') {
      it('035 counts the assignments made before it', async () => {
        const f = await startFileBackedApp(kind);
        const { t } = f;
        try {
          await seedTestBundles(t);
          const org = await t.createOrg({ balance: 1_000_000 });
          const [bought] = await Promise.all([1, 2, 3].map(() => buy(t, org, FR_1MB.name)));
          const used = bought?.iccids[0] ?? '';
          await installAndAttach(t, used);
          await use(t, used, MB);
          const rows = await counted(t);
          // The database as it was before 035: no deltas, no assignment counters.
          const db = t.deps.store.db;
          for (const fn of [
            'assignments_counted',
            'assignments_state_moved',
            'assignments_uncounted',
          ])
            await sql`drop function ${sql.raw(fn)}() cascade`.execute(db);
          await sql`drop table count_deltas`.execute(db);
          await sql`drop table restore_state`.execute(db);
          // What a restore before 035 left: the snapshot's counters, copied, unread since.
          await sql`delete from organisation_counts where name like 'assignments:%'`.execute(db);
          await sql`insert into organisation_counts (organisation_id, name, value)
            values (${org.id}, 'assignments:Processing', 5)`.execute(db);
          await sql`delete from kysely_migration where name = '035-count-deltas'`.execute(db);

          // The next start runs 035 on that data.
          await restartedApp(t, async (app) => {
            const res = await app.inject({ url: '/metrics' });
            assert.equal(res.statusCode, 200);
            assert.deepEqual(gauge(res.body, 'esim_bundle_assignments', 'state'), rows.assignments);
            assert.ok(Object.keys(rows.assignments).length >= 2, JSON.stringify(rows));
          });
        } finally {
          await f.close();
        }
      });
    }
  });
}
