import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listDueAssignments } from '../../src/store/repositories/assignment-repository.js';
import { readBusinessFigures } from '../../src/store/repositories/metrics-repository.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp } from '../harness.js';
import { assertIndexedRead, planOf, statementsOf } from '../query-plan.js';

// The lifecycle scheduler's due assignments, and the oldest due one /metrics reports, are read
// from partial indexes of the states they serve (033-due-indexes), in due order, sorting
// nothing: an ended assignment is in none of them, so they hold what is live, not the history.

const AT = '2026-01-01T00:00:00.000Z';

for (const kind of DATABASES) {
  describe(`due assignments by partial index [${kind}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(kind);
    });
    after(() => t.close());

    for (const [due, index] of [
      ['processing', 'assignments_processing_due'],
      ['ended', 'assignments_ending'],
      ['lapsed', 'assignments_lapsing'],
    ] as const) {
      it(`the scheduler reads ${due} assignments through ${index}, in order`, async () => {
        const db = t.deps.store.db;
        const [statement] = await statementsOf(db, (d) => listDueAssignments(d, due, AT, 100));
        assert.ok(statement !== undefined);
        assertIndexedRead(await planOf(db, kind, statement), index);
      });
    }

    it('/metrics finds the oldest due assignment of each kind through the same indexes', async () => {
      const db = t.deps.store.db;
      const statements = await statementsOf(db, (d) => readBusinessFigures(d, kind, AT));
      for (const [column, index] of [
        ['processing_due_at', 'assignments_processing_due'],
        ['end_time', 'assignments_ending'],
        ['valid_until', 'assignments_lapsing'],
      ] as const) {
        const statement = statements.find(
          (s) => s.sql.includes(`min("${column}")`) && s.sql.includes('"assignments"'),
        );
        assert.ok(statement !== undefined, `a statement reads min(${column})`);
        assertIndexedRead(await planOf(db, kind, statement), index);
      }
    });
  });
}
