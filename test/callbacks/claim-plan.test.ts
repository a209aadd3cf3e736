import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../../src/store/database.js';
import { claimDueEvents } from '../../src/store/repositories/callback-repository.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp } from '../harness.js';
import { CompiledQuery, sql } from 'kysely';
import { planOf, statementsOf } from '../query-plan.js';
import { recordUsage, snapshot } from './fixtures.js';

// The fair claim reads by index only, whatever the size of the queue: the organisations in
// round-robin order off the partial index of those with open callbacks, then each one's due
// callbacks off (organisation_id, status, next_attempt_at).

/**
 * As planOf, and on PostgreSQL with bitmap scans off too: on a test-sized table the planner
 * would rather sort a bitmap scan's few rows than read the index in order, as a large one does.
 */
async function orderedPlanOf(
  db: Db,
  kind: 'sqlite' | 'postgres',
  query: CompiledQuery,
): Promise<string> {
  if (kind === 'sqlite') return planOf(db, kind, query);
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    await sql`set local enable_bitmapscan = off`.execute(trx);
    const result = await trx.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
    );
    return result.rows.map((r) => r['QUERY PLAN']).join('\n');
  });
}

for (const kind of DATABASES) {
  describe(`the fair claim is index-backed [${kind}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(kind);
      for (let o = 0; o < 2; o += 1) {
        const org = await t.createOrg({ callbackUrl: 'http://127.0.0.1:9/hook' });
        for (let i = 0; i < 3; i += 1) {
          const iccid = `8944000000${String(o)}${String(i).padStart(8, '0')}`;
          await recordUsage(t, org.id, snapshot({ usedBytes: 10_000_000 }), 0, { iccid });
        }
      }
    });
    after(() => t.close());

    it('reads the organisations and their due callbacks through their indexes', async () => {
      const db = t.deps.store.db;
      const now = t.clock.now().toISOString();
      const statements = await statementsOf(db, (d) =>
        (d as Db).transaction().execute((trx) =>
          claimDueEvents(trx, kind, {
            now,
            leaseUntil: now,
            worker: 'plan',
            limit: 10,
            perOrganisation: 2,
            servedAt: now,
          }),
        ),
      );
      const [turns, ...rest] = statements;
      assert.ok(turns !== undefined);
      // The turns are the partial index read in order up to the limit: only organisations with
      // open callbacks are in it, and nothing is sorted.
      const turnPlan = await orderedPlanOf(db, kind, turns);
      assert.match(
        turnPlan,
        /USING INDEX callback_endpoints_turn|Index Scan using callback_endpoints_turn/,
      );
      assert.doesNotMatch(turnPlan, /TEMP B-TREE|\bSort\b|Seq Scan|Bitmap/, turnPlan);
      // Each organisation's due callbacks: the select its claim updates (seen on its own too).
      const perOrganisation = rest.filter((q) => q.sql.startsWith('select "e"."id"'));
      assert.equal(perOrganisation.length, 2, 'one claim per organisation');
      for (const q of perOrganisation) {
        const plan = await planOf(db, kind, q);
        assert.match(plan, /callback_events_org_due/, plan);
        assert.doesNotMatch(plan, /TEMP B-TREE|(^|\n)SCAN callback_events|Seq Scan/, plan);
      }
    });
  });
}
