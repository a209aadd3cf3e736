import { sql } from 'kysely';
import { compiledOnce } from '../compiled.js';
import type { Executor } from '../database.js';
import type { Assignment, AssignmentChanges } from '../domain-types.js';
import type { AssignmentRow, AssignmentsTable } from '../schema.js';

// Assignments, taken and returned as the domain's Assignment. The `state` column is written only
// through updateAssignmentIfState, which src/domain/esims/lifecycle/transition.ts calls after
// checking the transition table.

/**
 * An assignment row as the domain's assignment. Numbers from the database arrive as strings on
 * some drivers (pg int8): they are made numbers here, once.
 */
export function assignmentOf(row: Omit<AssignmentRow, 'alerts_sent'>): Assignment {
  return {
    id: row.id,
    reference: row.reference,
    iccid: row.iccid,
    organisationId: row.organisation_id,
    bundleName: row.bundle_name,
    batchId: row.batch_id === null ? null : Number(row.batch_id),
    state: row.state,
    initialBytes: Number(row.initial_bytes),
    remainingBytes: Number(row.remaining_bytes),
    usedBytes: Number(row.used_bytes),
    unlimited: Number(row.unlimited) === 1,
    durationDays: Number(row.duration_days),
    queuePosition: Number(row.queue_position),
    processingDueAt: row.processing_due_at,
    validUntil: row.valid_until,
    startTime: row.start_time,
    endTime: row.end_time,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

// Statements compiled once sit after the function that runs them (test/ci/write-guard.test.ts
// reads each exported function with the text that follows it).
export async function insertAssignment(db: Executor, assignment: Assignment): Promise<void> {
  await insertAssignmentStatement.execute(db, {
    ...assignment,
    unlimitedColumn: assignment.unlimited ? 1 : 0,
  });
}

// A new assignment has alerted no utilisation threshold yet.
const insertAssignmentStatement = compiledOnce(
  (db, p: Assignment & { readonly unlimitedColumn: number }) =>
    db.insertInto('assignments').values({
      id: p.id,
      reference: p.reference,
      iccid: p.iccid,
      organisation_id: p.organisationId,
      bundle_name: p.bundleName,
      batch_id: p.batchId,
      state: p.state,
      initial_bytes: p.initialBytes,
      remaining_bytes: p.remainingBytes,
      used_bytes: p.usedBytes,
      unlimited: p.unlimitedColumn,
      duration_days: p.durationDays,
      queue_position: p.queuePosition,
      processing_due_at: p.processingDueAt,
      valid_until: p.validUntil,
      start_time: p.startTime,
      end_time: p.endTime,
      alerts_sent: '[]',
      created_at: p.createdAt,
      updated_at: p.updatedAt,
    }),
);

export async function nextQueuePosition(db: Executor, iccid: string): Promise<number> {
  const { rows } = await lastQueuePosition.execute(db, { iccid });
  const max = rows[0]?.max;
  return max === null || max === undefined ? 1 : Number(max) + 1;
}

const lastQueuePosition = compiledOnce((db, p: { iccid: string }) =>
  db
    .selectFrom('assignments')
    .select((eb) => eb.fn.max('queue_position').as('max'))
    .where('iccid', '=', p.iccid),
);

export async function findAssignment(
  db: Executor,
  organisationId: string,
  iccid: string,
  id: string,
): Promise<Assignment | undefined> {
  const row = await db
    .selectFrom('assignments')
    .selectAll()
    .where('id', '=', id)
    .where('iccid', '=', iccid)
    .where('organisation_id', '=', organisationId)
    .executeTakeFirst();
  return row === undefined ? undefined : assignmentOf(row);
}

/** Every assignment of an eSIM (optionally of one bundle) in queue order, oldest first. */
export async function listAssignmentsOfEsim(
  db: Executor,
  iccid: string,
  bundleName?: string,
): Promise<Assignment[]> {
  let query = db.selectFrom('assignments').selectAll().where('iccid', '=', iccid);
  if (bundleName !== undefined) query = query.where('bundle_name', '=', bundleName);
  const rows = await query.orderBy('queue_position').orderBy('id').execute();
  return rows.map(assignmentOf);
}

export async function listAssignmentsByReference(
  db: Executor,
  organisationId: string,
  reference: string,
): Promise<Assignment[]> {
  const rows = await db
    .selectFrom('assignments')
    .selectAll()
    .where('reference', '=', reference)
    .where('organisation_id', '=', organisationId)
    .orderBy('created_at')
    .orderBy('iccid')
    .execute();
  return rows.map(assignmentOf);
}

/** The assignments of several order or apply references of the organisation (reference index). */
export async function listAssignmentsByReferences(
  db: Executor,
  organisationId: string,
  references: readonly string[],
): Promise<Assignment[]> {
  if (references.length === 0) return [];
  const rows = await db
    .selectFrom('assignments')
    .selectAll()
    .where('reference', 'in', references)
    .where('organisation_id', '=', organisationId)
    .orderBy('created_at')
    .orderBy('iccid')
    .execute();
  return rows.map(assignmentOf);
}

export type DueKind = 'processing' | 'ended' | 'lapsed';

/**
 * Rows whose time has come: Processing past processing_due_at, Active/Depleted past end_time,
 * Queued past valid_until. Oldest first, at most `limit`.
 */
export async function listDueAssignments(
  db: Executor,
  kind: DueKind,
  at: string,
  limit: number,
): Promise<Assignment[]> {
  // Each kind reads its partial index (033-due-indexes) in order: the state condition is
  // spelled literally, as the index's, for SQLite's planner to match it.
  let query = db.selectFrom('assignments').selectAll();
  if (kind === 'processing') {
    query = query
      .where(sql<boolean>`state = 'Processing'`)
      .where('processing_due_at', '<=', at)
      .orderBy('processing_due_at');
  } else if (kind === 'ended') {
    query = query
      .where(sql<boolean>`state in ('Active', 'Depleted')`)
      .where('end_time', '<=', at)
      .orderBy('end_time');
  } else {
    query = query
      .where(sql<boolean>`state = 'Queued'`)
      .where('valid_until', '<=', at)
      .orderBy('valid_until');
  }
  // Ties in due time come in the index's order: the scheduler needs none among them.
  const rows = await query.limit(limit).execute();
  return rows.map(assignmentOf);
}

/** The columns of the changes a caller asks for (only those it gives). */
function changedColumns(changes: AssignmentChanges): Partial<AssignmentsTable> {
  const set: Partial<AssignmentsTable> = {};
  if (changes.state !== undefined) set.state = changes.state;
  if (changes.remainingBytes !== undefined) set.remaining_bytes = changes.remainingBytes;
  if (changes.usedBytes !== undefined) set.used_bytes = changes.usedBytes;
  if (changes.startTime !== undefined) set.start_time = changes.startTime;
  if (changes.endTime !== undefined) set.end_time = changes.endTime;
  if (changes.processingDueAt !== undefined) set.processing_due_at = changes.processingDueAt;
  if (changes.updatedAt !== undefined) set.updated_at = changes.updatedAt;
  return set;
}

/**
 * Optimistic update: applies only when the row still has the state and usage the caller read,
 * so two writers can never both move the same assignment. Returns whether it applied.
 */
export async function updateAssignmentIfState(
  db: Executor,
  read: Pick<Assignment, 'id' | 'state' | 'usedBytes'>,
  changes: AssignmentChanges,
): Promise<boolean> {
  const result = await db
    .updateTable('assignments')
    .set(changedColumns(changes))
    .where('id', '=', read.id)
    .where('state', '=', read.state)
    .where('used_bytes', '=', read.usedBytes)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Utilisation thresholds (percent) already alerted for this assignment, ascending. */
export async function findAlertsSent(db: Executor, id: string): Promise<number[]> {
  const row = await db
    .selectFrom('assignments')
    .select('alerts_sent')
    .where('id', '=', id)
    .executeTakeFirst();
  return parseThresholds(row?.alerts_sent);
}

export async function updateAlertsSent(
  db: Executor,
  id: string,
  thresholds: readonly number[],
): Promise<void> {
  await db
    .updateTable('assignments')
    .set({ alerts_sent: JSON.stringify([...thresholds].sort((p, q) => p - q)) })
    .where('id', '=', id)
    .execute();
}

function parseThresholds(raw: string | undefined): number[] {
  if (raw === undefined) return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter((n): n is number => typeof n === 'number') : [];
  } catch {
    return [];
  }
}

/** An eSIM's assignments in queue order, with the descriptions of their bundles. */
export interface EsimAssignments {
  readonly assignments: Assignment[];
  readonly descriptions: Map<string, string>;
}

// The eSIM's assignments in the order of `assignments_iccid` (iccid, queue_position, id) when the
// eSIM is the organisation's; a page of them costs what it holds, however many the eSIM has had.
function esimAssignmentsQuery(db: Executor, organisationId: string, iccid: string) {
  return db
    .selectFrom('assignments as a')
    .leftJoin('bundles as b', 'b.name', 'a.bundle_name')
    .selectAll('a')
    .select('b.description as bundle_description')
    .where('a.iccid', '=', (eb) =>
      eb
        .selectFrom('esims as e')
        .select('e.iccid')
        .where('e.iccid', '=', iccid)
        .where('e.organisation_id', '=', organisationId),
    )
    .orderBy('a.iccid')
    .orderBy('a.queue_position')
    .orderBy('a.id');
}

type EsimAssignmentRow = AssignmentRow & { bundle_description: string | null };
interface OwnedIccid {
  organisationId: string;
  iccid: string;
}

// GET /esims/{iccid}/bundles: one statement (ownership, assignments, descriptions) whose SQL is
// built once per dialect; only an eSIM with no assignment is looked up again, to tell "none" from
// "not the organisation's".
const assignmentsQuery = compiledOnce<OwnedIccid, EsimAssignmentRow>((db, p) =>
  esimAssignmentsQuery(db, p.organisationId, p.iccid),
);

/**
 * The assignments of the organisation's eSIM, in queue order, with their bundles' descriptions;
 * undefined when the eSIM is unknown or another organisation's.
 */
export async function listEsimAssignments(
  db: Executor,
  organisationId: string,
  iccid: string,
): Promise<EsimAssignments | undefined> {
  const result = await assignmentsQuery.execute(db, { organisationId, iccid });
  const assignments: Assignment[] = [];
  const descriptions = new Map<string, string>();
  for (const { bundle_description: description, ...row } of result.rows) {
    assignments.push(assignmentOf(row));
    descriptions.set(row.bundle_name, description ?? '');
  }
  if (assignments.length === 0) {
    const owned = await db
      .selectFrom('esims')
      .select('iccid')
      .where('iccid', '=', iccid)
      .where('organisation_id', '=', organisationId)
      .executeTakeFirst();
    if (owned === undefined) return undefined;
  }
  return { assignments, descriptions };
}
