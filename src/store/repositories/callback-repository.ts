import type { Insertable, Selectable } from 'kysely';
import type { DialectName, Db, Executor } from '../database.js';
import type {
  CallbackAttemptsTable,
  CallbackEventsTable,
  EventStatus,
  OrganisationsTable,
} from '../schema.js';

// Rows of the callback outbox (callback_events) and its attempt log (callback_attempts).
// Delivery state lives here; the worker only moves rows between states.

export type CallbackEventRow = Selectable<CallbackEventsTable>;
type NewCallbackEvent = Insertable<CallbackEventsTable>;
export type CallbackAttemptRow = Selectable<CallbackAttemptsTable>;

export type { EventStatus };

export const EVENT_STATUSES = [
  'pending',
  'delivering',
  'delivered',
  'failed',
  'undeliverable',
] as const satisfies readonly EventStatus[];

/** An event for the callback outbox: what the organisation is told, about which eSIM. */
export interface OutboxEvent {
  readonly id: string;
  readonly organisationId: string;
  readonly iccid: string;
  readonly alertType: string;
  /** The full (V3) body, stored as JSON; the V2 shape is derived from it at send time. */
  readonly body: object;
  /** false: the organisation has no callback URL, and the event is kept as undeliverable. */
  readonly deliverable: boolean;
}

/**
 * Queues events in the callback outbox, due at once: the one place an outbox row is written, with
 * its delivery bookkeeping (status, attempts, lease) as a new event starts it.
 */
export async function queueCallbackEvents(
  trx: Executor,
  events: readonly OutboxEvent[],
  at: string,
): Promise<void> {
  const rows: NewCallbackEvent[] = events.map((e) => ({
    id: e.id,
    organisation_id: e.organisationId,
    iccid: e.iccid,
    alert_type: e.alertType,
    payload: JSON.stringify(e.body),
    status: e.deliverable ? 'pending' : 'undeliverable',
    attempts: 0,
    next_attempt_at: at,
    locked_until: null,
    locked_by: null,
    last_status: null,
    created_at: at,
    updated_at: at,
    delivered_at: null,
  }));
  if (rows.length > 0) await trx.insertInto('callback_events').values(rows).execute();
}

export interface Claim {
  readonly now: string;
  readonly leaseUntil: string;
  readonly worker: string;
  readonly limit: number;
}

/**
 * Leases up to `limit` due pending events to this worker, at most one per eSIM and only the
 * earliest open one of each: an event is not claimed while an earlier event of the same eSIM
 * (by `seq`, the insertion order) is pending (due or waiting for a retry), nor while any event of
 * that eSIM is being delivered (an older event resent runs alone too). So an eSIM's events reach
 * the receiver one at a time and in order, acknowledged or failed for good before the next,
 * while different eSIMs deliver in parallel.
 *
 * On PostgreSQL the candidate rows are locked with SKIP LOCKED, so concurrent instances claim
 * disjoint sets without waiting on each other. An instance cannot claim an eSIM's next event
 * while another holds its earlier one: that earlier row is pending (uncommitted claim) or
 * delivering (committed) in any snapshot, and either status holds the next one back. SQLite
 * serialises writers, which gives the same guarantee. The candidates come off the
 * (status, next_attempt_at) index, the check off (iccid, status, seq).
 */
export async function claimDueEvents(
  db: Db,
  dialect: DialectName,
  claim: Claim,
): Promise<CallbackEventRow[]> {
  const due = db
    .selectFrom('callback_events as e')
    .select('e.id')
    .where('e.status', '=', 'pending')
    .where('e.next_attempt_at', '<=', claim.now)
    // Two probes of the (iccid, status, seq) index: an earlier event of the eSIM still pending,
    // and any event of it under way (even a later one, when an older event was resent).
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('callback_events as p')
            .select('p.id')
            .whereRef('p.iccid', '=', 'e.iccid')
            .where('p.status', '=', 'pending')
            .whereRef('p.seq', '<', 'e.seq'),
        ),
      ),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('callback_events as d')
            .select('d.id')
            .whereRef('d.iccid', '=', 'e.iccid')
            .where('d.status', '=', 'delivering'),
        ),
      ),
    )
    // Ordering by next_attempt_at alone lets the scan stop after `limit` rows of the index.
    .orderBy('e.next_attempt_at')
    .limit(claim.limit)
    .$if(dialect === 'postgres', (qb) => qb.forUpdate().skipLocked());
  return db
    .updateTable('callback_events')
    .set({
      status: 'delivering',
      locked_until: claim.leaseUntil,
      locked_by: claim.worker,
      updated_at: claim.now,
    })
    .where('id', 'in', due)
    .returningAll()
    .execute();
}

/**
 * No worker leases an event for longer than this: its lease covers a send and its timeouts,
 * bounded by configuration to a few minutes. A lease further ahead was written against another
 * clock (a simulated one, before leases ran on real time, or before the system clock was stepped
 * back) and would otherwise hold its event for that long; it is treated as lapsed.
 */
export const MAX_LEASE_SECONDS = 3600;

/**
 * Puts events whose lease lapsed (their worker died or hung) back to pending, so any worker can
 * claim them. Their attempt count is unchanged: the lost attempt left no outcome. `leaseNow` is
 * real time (leases run on it); `at` is the service's clock, for updated_at.
 */
export async function reclaimExpired(
  db: Db,
  times: { readonly leaseNow: string; readonly at: string },
): Promise<number> {
  const horizon = new Date(Date.parse(times.leaseNow) + MAX_LEASE_SECONDS * 1000).toISOString();
  const result = await db
    .updateTable('callback_events')
    .set({ status: 'pending', locked_until: null, locked_by: null, updated_at: times.at })
    .where('status', '=', 'delivering')
    .where((eb) =>
      eb.or([eb('locked_until', '<=', times.leaseNow), eb('locked_until', '>', horizon)]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export interface OrganisationTarget {
  readonly id: string;
  readonly callback_url: string;
  readonly callback_version: OrganisationsTable['callback_version'];
  readonly api_key_enc: string;
}

export async function findTargets(
  db: Executor,
  organisationIds: readonly string[],
): Promise<OrganisationTarget[]> {
  if (organisationIds.length === 0) return [];
  return db
    .selectFrom('organisations')
    .select(['id', 'callback_url', 'callback_version', 'api_key_enc'])
    .where('id', 'in', [...organisationIds])
    .execute();
}

/** What one delivery turn did to an event. */
export interface Outcome {
  readonly eventId: string;
  readonly worker: string;
  readonly at: string;
  readonly status: 'delivered' | 'pending' | 'failed' | 'undeliverable';
  readonly attempts: number;
  readonly nextAttemptAt: string;
  readonly lastStatus: number | null;
  /** The attempt to log; absent when nothing was sent (no callback URL). */
  readonly attempt?: Insertable<CallbackAttemptsTable>;
}

/**
 * Writes a batch of outcomes, in the caller's transaction. The state change is fenced on this worker's
 * lease, so a worker that lost its lease cannot overwrite the newer owner's state; the attempt is
 * logged either way, because the request was made. Acknowledged deliveries, the bulk of any
 * batch, share one UPDATE per response status.
 */
export async function recordOutcomes(trx: Executor, outcomes: readonly Outcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  const delivered = new Map<string, Outcome[]>();
  const others: Outcome[] = [];
  for (const o of outcomes) {
    if (o.status !== 'delivered') {
      others.push(o);
      continue;
    }
    const key = `${o.worker} ${String(o.lastStatus)}`;
    delivered.set(key, [...(delivered.get(key) ?? []), o]);
  }
  const attempts = outcomes.flatMap((o) => (o.attempt === undefined ? [] : [o.attempt]));
  if (attempts.length > 0) await trx.insertInto('callback_attempts').values(attempts).execute();
  for (const group of delivered.values()) {
    const [first] = group;
    if (first === undefined) continue;
    const at = group.reduce((latest, o) => (o.at > latest ? o.at : latest), first.at);
    await trx
      .updateTable('callback_events')
      .set((eb) => ({
        status: 'delivered',
        attempts: eb('attempts', '+', 1),
        next_attempt_at: at,
        last_status: first.lastStatus,
        locked_until: null,
        locked_by: null,
        updated_at: at,
        delivered_at: at,
      }))
      .where(
        'id',
        'in',
        group.map((o) => o.eventId),
      )
      .where('locked_by', '=', first.worker)
      .where('status', '=', 'delivering')
      .execute();
  }
  for (const o of others) {
    await trx
      .updateTable('callback_events')
      .set({
        status: o.status,
        attempts: o.attempts,
        next_attempt_at: o.nextAttemptAt,
        last_status: o.lastStatus,
        locked_until: null,
        locked_by: null,
        updated_at: o.at,
      })
      .where('id', '=', o.eventId)
      .where('locked_by', '=', o.worker)
      .where('status', '=', 'delivering')
      .execute();
  }
}

/** Hands leased but unsent events back (graceful stop), so another worker takes them at once. */
export async function releaseEvents(
  db: Db,
  ids: readonly string[],
  worker: string,
  at: string,
): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('callback_events')
    .set({ status: 'pending', locked_until: null, locked_by: null, updated_at: at })
    .where('id', 'in', [...ids])
    .where('locked_by', '=', worker)
    .where('status', '=', 'delivering')
    .execute();
}

export interface EventFilter {
  readonly organisationId: string;
  readonly status?: EventStatus;
  readonly limit: number;
  readonly offset: number;
}

/** An organisation's events, newest first, with the total for paging. */
export async function listEvents(
  db: Executor,
  filter: EventFilter,
): Promise<{ rows: CallbackEventRow[]; total: number }> {
  let base = db.selectFrom('callback_events').where('organisation_id', '=', filter.organisationId);
  if (filter.status !== undefined) base = base.where('status', '=', filter.status);
  const [rows, count] = await Promise.all([
    base
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(filter.limit)
      .offset(filter.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function findEvent(db: Executor, id: string): Promise<CallbackEventRow | undefined> {
  return db.selectFrom('callback_events').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listAttempts(db: Executor, eventId: string): Promise<CallbackAttemptRow[]> {
  return db
    .selectFrom('callback_attempts')
    .selectAll()
    .where('event_id', '=', eventId)
    .orderBy('attempt_no')
    .orderBy('id')
    .execute();
}

/**
 * Queues an event again with a fresh retry round; past attempts keep their numbers. Conditional
 * on one of the `from` statuses, so a concurrent resend or delivery cannot be doubled.
 */
export async function requeueEvent(
  db: Executor,
  id: string,
  from: readonly EventStatus[],
  at: string,
): Promise<CallbackEventRow | undefined> {
  return db
    .updateTable('callback_events')
    .set((eb) => ({
      status: 'pending',
      next_attempt_at: at,
      retry_from: eb.ref('attempts'),
      locked_until: null,
      locked_by: null,
      updated_at: at,
    }))
    .where('id', '=', id)
    .where('status', 'in', [...from])
    .returningAll()
    .executeTakeFirst();
}

export interface FailingCounts {
  /** Deliveries that gave up after the whole retry schedule. */
  readonly failed: number;
  /** Deliveries still being retried after at least one unsuccessful attempt. */
  readonly retrying: number;
}

/** The organisation's deliveries that are not getting through. */
export async function countFailingEvents(
  db: Executor,
  organisationId: string,
): Promise<FailingCounts> {
  const rows = await db
    .selectFrom('callback_events')
    .select(['status', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('organisation_id', '=', organisationId)
    .where((eb) =>
      eb.or([
        eb('status', '=', 'failed'),
        eb.and([eb('status', 'in', ['pending', 'delivering']), eb('attempts', '>', 0)]),
      ]),
    )
    .groupBy('status')
    .execute();
  let failed = 0;
  let retrying = 0;
  for (const row of rows) {
    if (row.status === 'failed') failed += Number(row.n);
    else retrying += Number(row.n);
  }
  return { failed, retrying };
}
