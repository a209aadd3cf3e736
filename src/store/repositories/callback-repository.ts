import { sql } from 'kysely';
import type { Insertable, Selectable } from 'kysely';
import type { DialectName, Db, Executor } from '../database.js';
import type { CallbackEndpoint, CallbackEvent, DeliveryAttempt } from '../domain-types.js';
import { recordDeletions } from './deletion-tree.js';
import type {
  CallbackAttemptsTable,
  CallbackEndpointsTable,
  CallbackEventsTable,
  EventStatus,
  OrganisationsTable,
} from '../schema.js';

// Rows of the callback outbox (callback_events) and its attempt log (callback_attempts).
// Delivery state lives here; the worker only moves rows between states. The organisation's list
// of deliveries is read in callback-list-repository.ts.

export type CallbackEventRow = Selectable<CallbackEventsTable>;
type NewCallbackEvent = Insertable<CallbackEventsTable>;
type CallbackAttemptRow = Selectable<CallbackAttemptsTable>;

/** An event row as the domain's callback event. */
export function callbackEventOf(row: CallbackEventRow): CallbackEvent {
  return {
    id: row.id,
    organisationId: row.organisation_id,
    iccid: row.iccid,
    alertType: row.alert_type,
    payload: row.payload,
    status: row.status,
    attempts: Number(row.attempts),
    lastStatus: row.last_status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    nextAttemptAt: row.next_attempt_at,
    deliveredAt: row.delivered_at,
    retryFrom: Number(row.retry_from),
  };
}

/** An attempt as its row. */
function attemptRow(attempt: DeliveryAttempt): Insertable<CallbackAttemptsTable> {
  return {
    event_id: attempt.eventId,
    attempt_no: attempt.attemptNo,
    attempted_at: attempt.attemptedAt,
    url: attempt.url,
    status_code: attempt.statusCode,
    latency_ms: attempt.latencyMs,
    error: attempt.error,
    response_snippet: attempt.responseSnippet,
    request_headers: attempt.requestHeaders,
    request_body: attempt.requestBody,
  };
}

function attemptOf(row: CallbackAttemptRow): DeliveryAttempt {
  return {
    eventId: row.event_id,
    attemptNo: Number(row.attempt_no),
    attemptedAt: row.attempted_at,
    url: row.url,
    statusCode: row.status_code,
    latencyMs: Number(row.latency_ms),
    error: row.error,
    responseSnippet: row.response_snippet,
    requestHeaders: row.request_headers ?? null,
    requestBody: row.request_body ?? null,
  };
}

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
  /**
   * true: the organisation's bound on waiting callbacks is reached; the event is stored failed,
   * without an attempt, and may be resent once the queue has drained.
   */
  readonly queueFull?: boolean;
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
    status: !e.deliverable ? 'undeliverable' : e.queueFull === true ? 'failed' : 'pending',
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
  /** Events of one organisation claimed or in flight at once, across workers. */
  readonly perOrganisation: number;
  /** Real time, for the round-robin order of organisations. */
  readonly servedAt: string;
  /** Organisations this claim leaves alone (those whose callbacks the claimer cannot sign). */
  readonly skip?: readonly string[];
}

/** How many organisations one claim looks at, at most (round-robin: the least recently served). */
const TURNS_PER_CLAIM = 64;

/**
 * Leases up to `limit` due pending events to this worker, in the caller's transaction `trx`
 * (which may record outcomes first), fairly across organisations: the organisations with open
 * events are taken in round-robin order (least recently served first, off the partial index of
 * `callback_endpoints`), skipping those whose endpoint is paused or backed off and those that
 * already have `perOrganisation` events claimed; each gives at most its room under that cap. So
 * one organisation's backlog or silent endpoint holds at most `perOrganisation` deliveries and
 * never the others' turn.
 *
 * On PostgreSQL an organisation is claimed for under a transaction-scoped advisory lock, taken
 * with try (an organisation another instance is claiming for is skipped), and its in-flight count
 * is read again once the lock is held: so two instances never claim for the same organisation at
 * once and the cap holds across instances. Not a row lock on `callback_endpoints`: every usage
 * or attach that queues a callback updates that row's counters in its own transaction, and a
 * claim that skipped locked rows found a busy organisation's row locked nearly always, so its
 * callbacks waited while its traffic lasted. SQLite serialises writers, which gives the same
 * guarantee.
 */
export async function claimDueEvents(
  trx: Executor,
  dialect: DialectName,
  claim: Claim,
): Promise<CallbackEvent[]> {
  const candidates = await servable(trx, claim)
    // Spelled literally, so SQLite reads the partial index of organisations with open events.
    .where(sql<boolean>`open_events > 0`)
    .orderBy('served_at')
    .limit(TURNS_PER_CLAIM)
    .execute();
  const turns = dialect === 'postgres' ? await lockedTurns(trx, claim, candidates) : candidates;
  const claimed: CallbackEventRow[] = [];
  const served: string[] = [];
  for (const turn of turns) {
    const room = Math.min(
      claim.perOrganisation - Number(turn.in_flight),
      claim.limit - claimed.length,
    );
    if (room <= 0) break;
    served.push(turn.organisation_id);
    claimed.push(
      ...(await claimOrganisationEvents(trx, dialect, claim, turn.organisation_id, room)),
    );
  }
  if (served.length > 0) {
    await trx
      .updateTable('callback_endpoints')
      .set({ served_at: claim.servedAt })
      .where('organisation_id', 'in', served)
      .execute();
  }
  return claimed.map(callbackEventOf);
}

/** The organisations a claim may serve: under their cap, neither paused nor backed off. */
function servable(trx: Executor, claim: Claim) {
  return trx
    .selectFrom('callback_endpoints')
    .select(['organisation_id', 'in_flight'])
    .where('in_flight', '<', claim.perOrganisation)
    .where('paused_at', 'is', null)
    .where((eb) => eb.or([eb('backoff_until', 'is', null), eb('backoff_until', '<=', claim.now)]))
    .$if(claim.skip !== undefined && claim.skip.length > 0, (qb) =>
      qb.where('organisation_id', 'not in', [...(claim.skip ?? [])]),
    );
}

/** Namespace of the claims' advisory locks (pg_try_advisory_xact_lock(namespace, key)). */
const CLAIM_LOCKS = 0x65_53_49_4d;

/**
 * PostgreSQL: the candidates whose claim lock this transaction obtained, in their turn order,
 * with their in-flight counts as committed now (a later statement, so a later snapshot than the
 * candidates': another instance may have claimed for one of them and committed meanwhile).
 */
async function lockedTurns(
  trx: Executor,
  claim: Claim,
  candidates: readonly { organisation_id: string; in_flight: number | string }[],
): Promise<{ organisation_id: string; in_flight: number | string }[]> {
  if (candidates.length === 0) return [];
  const ids = candidates.map((c) => c.organisation_id);
  const locked = await sql<{ organisation_id: string }>`
    select c.organisation_id from unnest(${ids}::text[]) as c(organisation_id)
    where pg_try_advisory_xact_lock(${CLAIM_LOCKS}, hashtext(c.organisation_id))`.execute(trx);
  if (locked.rows.length === 0) return [];
  const fresh = await servable(trx, claim)
    .where(
      'organisation_id',
      'in',
      locked.rows.map((r) => r.organisation_id),
    )
    .execute();
  const order = new Map(ids.map((id, i) => [id, i]));
  return fresh.sort(
    (a, b) => (order.get(a.organisation_id) ?? 0) - (order.get(b.organisation_id) ?? 0),
  );
}

/**
 * One organisation's share of a claim: at most one event per eSIM and only the earliest open one
 * of each: an event is not claimed while an earlier event of the same eSIM (by `seq`, the
 * insertion order) is pending (due or waiting for a retry), nor while any event of that eSIM is
 * being delivered (an older event resent runs alone too). So an eSIM's events reach the receiver
 * one at a time and in order, acknowledged or failed for good before the next, while different
 * eSIMs deliver in parallel. The candidates come off the (organisation_id, status,
 * next_attempt_at) index, the check off (iccid, status, seq).
 */
async function claimOrganisationEvents(
  trx: Executor,
  dialect: DialectName,
  claim: Claim,
  organisationId: string,
  limit: number,
): Promise<CallbackEventRow[]> {
  const due = trx
    .selectFrom('callback_events as e')
    .select('e.id')
    .where('e.organisation_id', '=', organisationId)
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
    .orderBy('e.next_attempt_at')
    .limit(limit)
    .$if(dialect === 'postgres', (qb) => qb.forUpdate().skipLocked());
  return trx
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

/** Where an organisation's callbacks go, and its API key as stored (encrypted), which signs them. */
export interface OrganisationTarget {
  readonly id: string;
  readonly callbackUrl: string;
  readonly callbackVersion: OrganisationsTable['callback_version'];
  readonly encryptedApiKey: string;
}

export async function findTargets(
  db: Executor,
  organisationIds: readonly string[],
): Promise<OrganisationTarget[]> {
  if (organisationIds.length === 0) return [];
  const rows = await db
    .selectFrom('organisations')
    .select(['id', 'callback_url', 'callback_version', 'api_key_enc'])
    .where('id', 'in', [...organisationIds])
    .execute();
  return rows.map((r) => ({
    id: r.id,
    callbackUrl: r.callback_url,
    callbackVersion: r.callback_version,
    encryptedApiKey: r.api_key_enc,
  }));
}

/** What one delivery turn did to an event. */
export interface Outcome {
  readonly eventId: string;
  readonly organisationId: string;
  readonly worker: string;
  readonly at: string;
  readonly status: 'delivered' | 'pending' | 'failed' | 'undeliverable';
  readonly attempts: number;
  readonly nextAttemptAt: string;
  readonly lastStatus: number | null;
  /** The attempt to log; absent when nothing was sent (no callback URL). */
  readonly attempt?: DeliveryAttempt;
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
  const attempts = outcomes.flatMap((o) =>
    o.attempt === undefined ? [] : [attemptRow(o.attempt)],
  );
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
  // By status, so the counters of one organisation are taken in their names' order
  // (delivered above, then failed, pending, undeliverable), as the retention's delete takes
  // delivered, failed and undeliverable: the two never wait on each other in a cycle.
  const byStatus = [...others].sort((a, b) =>
    a.status < b.status ? -1 : a.status > b.status ? 1 : 0,
  );
  for (const o of byStatus) {
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

export async function findEvent(db: Executor, id: string): Promise<CallbackEvent | undefined> {
  const row = await db
    .selectFrom('callback_events')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  return row === undefined ? undefined : callbackEventOf(row);
}

/**
 * The event's attempts in order. A body written as null beside its headers was the event's
 * payload (bodyKept), read back from the event here.
 */
export async function listAttempts(db: Executor, eventId: string): Promise<DeliveryAttempt[]> {
  const rows = await db
    .selectFrom('callback_attempts as a')
    .leftJoin('callback_events as e', 'e.id', 'a.event_id')
    .select([
      'a.id',
      'a.event_id',
      'a.attempt_no',
      'a.attempted_at',
      'a.url',
      'a.status_code',
      'a.latency_ms',
      'a.error',
      'a.response_snippet',
      'a.request_headers',
    ])
    .select(
      sql<string | null>`case when a.request_body is null and a.request_headers is not null
        then e.payload else a.request_body end`.as('request_body'),
    )
    .where('a.event_id', '=', eventId)
    .orderBy('a.attempt_no')
    .orderBy('a.id')
    .execute();
  return rows.map(attemptOf);
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
): Promise<CallbackEvent | undefined> {
  const row = await db
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
  return row === undefined ? undefined : callbackEventOf(row);
}

export interface FailingCounts {
  /** Deliveries that gave up after the whole retry schedule. */
  readonly failed: number;
  /** Deliveries still being retried after at least one unsuccessful attempt. */
  readonly retrying: number;
}

/** The organisation's deliveries that are not getting through: two counters of 023-list-counters. */
export async function countFailingEvents(
  db: Executor,
  organisationId: string,
): Promise<FailingCounts> {
  const rows = await db
    .selectFrom('organisation_counts')
    .select(['name', 'value'])
    .where('organisation_id', '=', organisationId)
    .where('name', 'in', ['callbacks:failed', 'callbacks:retrying'])
    .execute();
  const value = (name: string) => Number(rows.find((r) => r.name === name)?.value ?? 0);
  return { failed: value('callbacks:failed'), retrying: value('callbacks:retrying') };
}

type CallbackEndpointRow = Selectable<CallbackEndpointsTable>;

function endpointOf(row: CallbackEndpointRow): CallbackEndpoint {
  return {
    organisationId: row.organisation_id,
    openEvents: Number(row.open_events),
    failures: Number(row.failures),
    backoffUntil: row.backoff_until,
    pausedAt: row.paused_at,
  };
}

/** The endpoint state of the given organisations, locked for the transaction on PostgreSQL. */
export async function lockEndpoints(
  trx: Executor,
  dialect: DialectName,
  organisationIds: readonly string[],
): Promise<CallbackEndpoint[]> {
  if (organisationIds.length === 0) return [];
  const rows = await trx
    .selectFrom('callback_endpoints')
    .selectAll()
    .where('organisation_id', 'in', [...organisationIds])
    // In one order, so two writers recording outcomes of the same organisations never deadlock.
    .orderBy('organisation_id')
    .$if(dialect === 'postgres', (qb) => qb.forUpdate())
    .execute();
  return rows.map(endpointOf);
}

export async function findEndpoint(
  db: Executor,
  organisationId: string,
): Promise<CallbackEndpoint | undefined> {
  const row = await db
    .selectFrom('callback_endpoints')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .executeTakeFirst();
  return row === undefined ? undefined : endpointOf(row);
}

export interface EndpointHealth {
  readonly failures: number;
  readonly backoffUntil: string | null;
  readonly pausedAt: string | null;
}

export async function updateEndpointHealth(
  trx: Executor,
  organisationId: string,
  health: EndpointHealth,
): Promise<void> {
  await trx
    .updateTable('callback_endpoints')
    .set({
      failures: health.failures,
      backoff_until: health.backoffUntil,
      paused_at: health.pausedAt,
    })
    .where('organisation_id', '=', organisationId)
    .execute();
}

const FINISHED: readonly EventStatus[] = ['delivered', 'failed', 'undeliverable'];

/**
 * Deletes up to `limit` finished events (delivered, failed, undeliverable) that finished before
 * `before`, with their attempts; how many events. A finished event's next_attempt_at is when it
 * finished, so they come off the (status, next_attempt_at) index, oldest first. Each
 * organisation's are deleted in a transaction of their own, so a transaction takes the status
 * counters of one organisation only, in one statement (the delete's trigger), in their names'
 * order. On PostgreSQL the rows are locked and those another instance holds are skipped. The
 * deleted events' row numbers are counted in the organisation's deletion tree
 * (029-callback-deletions), so the list's pages by number and its total stay exact.
 */
export async function deleteFinishedEvents(
  db: Db,
  before: string,
  limit: number,
  dialect: DialectName,
): Promise<number> {
  const found = await db
    .selectFrom('callback_events')
    .select(['id', 'organisation_id'])
    .where('status', 'in', [...FINISHED])
    .where('next_attempt_at', '<', before)
    .limit(limit)
    .execute();
  const byOrganisation = new Map<string, string[]>();
  for (const row of found) {
    byOrganisation.set(row.organisation_id, [
      ...(byOrganisation.get(row.organisation_id) ?? []),
      row.id,
    ]);
  }
  let deleted = 0;
  for (const [organisationId, ids] of byOrganisation) {
    deleted += await db.transaction().execute(async (trx) => {
      const locked = await trx
        .selectFrom('callback_events')
        .select('id')
        .where('id', 'in', ids)
        .where('status', 'in', [...FINISHED])
        .$if(dialect === 'postgres', (qb) => qb.forUpdate().skipLocked())
        .execute();
      const held = locked.map((r) => r.id);
      if (held.length === 0) return 0;
      await trx.deleteFrom('callback_attempts').where('event_id', 'in', held).execute();
      const rows = await trx
        .deleteFrom('callback_events')
        .where('id', 'in', held)
        .returning('org_seq')
        .execute();
      const numbers = rows.flatMap((r) => (r.org_seq === null ? [] : [Number(r.org_seq)]));
      await recordDeletions(trx, 'callback_deletions', organisationId, numbers);
      return rows.length;
    });
  }
  return deleted;
}
