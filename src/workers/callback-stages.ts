import type { CallbackEvent } from '../domain/callbacks/callback-event.js';
import type { Outcome } from '../store/repositories/callback-repository.js';
import type { Target } from '../callbacks/delivery.js';
import {
  afterAttempt,
  buildRequest,
  isAcknowledged,
  undeliverable,
} from '../callbacks/delivery.js';
import type { CallbackTransport, SendOutcome } from '../callbacks/http-sender.js';
import type { Clock, WallClock } from '../clock.js';
import { addSeconds, iso } from '../clock.js';
import type { AppDeps } from '../deps.js';
import { claimDeliveries, releaseDeliveries } from '../domain/callbacks/delivery-queue.js';
import type { CallbackOutcome, Metrics } from '../metrics/metrics.js';
import type { InsertSignal } from '../store/insert-signal.js';
import type { WorkerLog } from './worker.js';

// The claim and act stages of callback delivery. Each is a plain function of the worker's
// context (what never changes while it runs) and the state it hands between stages (the local
// queue of leased events, the sends under way, the outcomes not yet recorded).

/** What a delivery worker runs with; fixed for its life. */
export interface DeliveryContext {
  readonly deps: Pick<AppDeps, 'config' | 'store' | 'random' | 'cipher'>;
  /** Domain time: when an event is due, when an attempt happened. The simulator moves it. */
  readonly clock: Clock;
  /** Real time: leases and timers. Never moved by the simulator. */
  readonly wallClock: WallClock;
  readonly transport: CallbackTransport;
  readonly instanceId: string;
  /** Fires when this process queues callback events; absent, the worker only polls. */
  readonly queued: InsertSignal | undefined;
  readonly concurrency: number;
  /** How many events a claim may hold locally, queued or under way. */
  readonly batchSize: number;
  readonly leaseSeconds: number;
  /**
   * Whether outcomes waiting are recorded with the next claim, in its transaction (SQLite). Not on
   * PostgreSQL: see claimDeliveries.
   */
  readonly recordWithClaims: boolean;
  readonly metrics: Pick<Metrics, 'observeCallbackAttempt'> | undefined;
  /** Where a failed attempt is told (the server's log). */
  readonly log: Pick<WorkerLog, 'warn'>;
}

/** An event claimed by this worker, with where to send it and until when it may. */
export interface Leased {
  readonly event: CallbackEvent;
  readonly target: Target | undefined;
  readonly leaseUntil: Date;
}

/** What the stages hand to one another; owned by one worker. */
export interface DeliveryState {
  /** Claimed and not yet sent. */
  readonly queue: Leased[];
  /** Sends under way. */
  readonly inFlight: Set<Promise<void>>;
  /** Outcomes waiting to be recorded. */
  outcomes: Outcome[];
  /**
   * Whether a claim may find anything. A claim that leased fewer events than it asked for found
   * every organisation at its cap or nothing due: claiming again before outcomes have been
   * recorded (which frees room under the caps) or the poll interval has passed would only repeat
   * that empty transaction.
   */
  claimAgain: boolean;
  /** A claim is under way (one at a time). */
  claiming: boolean;
  /** Events claimed so far, by the turns and the outcome writer. */
  claimed: number;
  /** Set by stop(): claim nothing more, send nothing more from the queue. */
  stopping: boolean;
  /**
   * Wall-clock ms from which the next turn looks for lapsed leases. A lease lasts far longer
   * than the poll interval, so looking once per interval finds each lapse at most an interval
   * late, where a look at every turn cost a statement per turn of a busy worker.
   */
  lapsedCheckDue: number;
  /**
   * Organisations whose V3 callbacks this instance cannot sign (their stored API key does not
   * decrypt with its MASTER_KEY), each with the service-clock ms until which its claims leave
   * them alone. In memory and bounded: see handBackUnsignable.
   */
  readonly unsignable: Map<string, number>;
}

/** How long an instance leaves alone an organisation whose callbacks it cannot sign. */
export const UNSIGNABLE_SKIP_SECONDS = 60;
/** At most this many such organisations are remembered (the oldest forgotten first). */
export const MAX_UNSIGNABLE = 1000;

export const emptyState = (): DeliveryState => ({
  queue: [],
  inFlight: new Set(),
  outcomes: [],
  claimAgain: true,
  claiming: false,
  claimed: 0,
  stopping: false,
  lapsedCheckDue: 0,
  unsignable: new Map(),
});

/** The organisations a claim leaves alone now; those whose time is up are forgotten. */
function skipped(state: DeliveryState, nowMs: number): string[] {
  for (const [organisationId, until] of state.unsignable) {
    if (until <= nowMs) state.unsignable.delete(organisationId);
  }
  return [...state.unsignable.keys()];
}

/**
 * V3 events whose organisation's key this instance cannot read (a re-key not finished, or this
 * instance started with another MASTER_KEY) are handed back unsent at once, with no attempt
 * used, for an instance that can sign them; this instance leaves those organisations alone for
 * UNSIGNABLE_SKIP_SECONDS, then looks again (a key rotated meanwhile is then signed with). One
 * warning per claim that finds any, never one per event. The others' callbacks, and V2 ones, go
 * on as ever.
 */
async function handBackUnsignable(
  ctx: DeliveryContext,
  state: DeliveryState,
  leased: readonly Leased[],
): Promise<void> {
  if (leased.length === 0) return;
  const now = ctx.clock.now();
  const until = now.getTime() + UNSIGNABLE_SKIP_SECONDS * 1000;
  const organisations = [...new Set(leased.map((item) => item.event.organisationId))];
  for (const organisationId of organisations) {
    state.unsignable.delete(organisationId);
    if (state.unsignable.size >= MAX_UNSIGNABLE) {
      const oldest = state.unsignable.keys().next();
      if (oldest.done !== true) state.unsignable.delete(oldest.value);
    }
    state.unsignable.set(organisationId, until);
  }
  const reason = leased[0]?.target?.unreadableKey ?? 'no signing key';
  ctx.log.warn(
    { organisationIds: organisations, events: leased.length, skipSeconds: UNSIGNABLE_SKIP_SECONDS },
    `callbacks not sent by this instance for ${organisations.length} organisation(s) ` +
      `(${organisations.join(', ')}): ${reason}. Their ${leased.length} event(s) are handed ` +
      `back unsent, no attempt used, for an instance that can sign them; this instance leaves ` +
      `them alone for ${UNSIGNABLE_SKIP_SECONDS} s`,
  );
  try {
    await releaseDeliveries(
      ctx.deps,
      leased.map((item) => item.event.id),
      ctx.instanceId,
      iso(now),
    );
  } catch (error) {
    ctx.log.warn({ err: error }, 'could not hand back unsigned callbacks; their lease will lapse');
  }
}

const unsignable = (target: Target | undefined): boolean =>
  target?.version === 'V3' && target.apiKey === undefined;

/**
 * Claim: leases up to `limit` due events and queues them with their targets; how many.
 * `outcomes` (answers not yet recorded) are recorded first (claimDeliveries; on SQLite in the
 * claim's transaction, one commit for both), and the room they free under the organisations' caps
 * is claimed at once.
 */
export async function claim(
  ctx: DeliveryContext,
  state: DeliveryState,
  limit: number,
  outcomes: readonly Outcome[] = [],
): Promise<number> {
  const leaseUntil = addSeconds(ctx.wallClock.now(), ctx.leaseSeconds);
  state.claiming = true;
  let claimed: Awaited<ReturnType<typeof claimDeliveries>>;
  try {
    claimed = await claimDeliveries(
      ctx.deps,
      {
        now: iso(ctx.clock.now()),
        leaseUntil: iso(leaseUntil),
        worker: ctx.instanceId,
        limit,
        servedAt: iso(ctx.wallClock.now()),
        skip: skipped(state, ctx.clock.now().getTime()),
      },
      outcomes,
    );
  } finally {
    state.claiming = false;
  }
  const { events, targets } = claimed;
  const handedBack: Leased[] = [];
  for (const event of events) {
    const item = { event, target: targets.get(event.organisationId), leaseUntil };
    if (unsignable(item.target)) handedBack.push(item);
    else state.queue.push(item);
  }
  await handBackUnsignable(ctx, state, handedBack);
  const kept = events.length - handedBack.length;
  state.claimed += kept;
  // After a hand-back the next claim waits for the poll interval: a worker whose claims find
  // more such organisations than it remembers never spins on claims it hands back whole.
  state.claimAgain = events.length === limit && handedBack.length === 0;
  return kept;
}

const attemptOutcome = (sent: SendOutcome): CallbackOutcome =>
  isAcknowledged(sent.statusCode) ? 'delivered' : sent.statusCode === null ? 'error' : 'rejected';

/**
 * Act: sends one leased event (or records it undeliverable when its organisation has no
 * callback URL). The outcome joins state.outcomes when the receiver answers.
 */
export function send(ctx: DeliveryContext, state: DeliveryState, item: Leased): void {
  const { config, random } = ctx.deps;
  const turn = {
    event: item.event,
    worker: ctx.instanceId,
    now: ctx.clock.now(),
    schedule: config.callbackRetryScheduleSeconds,
    random,
  };
  if (item.target === undefined) {
    state.outcomes.push(undeliverable(turn));
    return;
  }
  // Too close to the end of the lease: another instance may take it over mid-send. Leave it
  // to lapse and be claimed afresh rather than risk two concurrent deliveries.
  if (ctx.wallClock.now().getTime() + config.callbackTimeoutMs >= item.leaseUntil.getTime()) {
    return;
  }
  const target = item.target;
  // Nothing unsigned goes out: claim() hands such events back and never queues them.
  if (unsignable(target)) return;
  const attemptedAt = turn.now;
  const request = buildRequest(item.event, target, item.event.attempts + 1, ctx.instanceId);
  const task = ctx.transport
    .send(request)
    .then((sent) => {
      ctx.metrics?.observeCallbackAttempt(attemptOutcome(sent), sent.latencyMs / 1000);
      const outcome = afterAttempt({ ...turn, now: ctx.clock.now() }, request, attemptedAt, sent);
      state.outcomes.push(outcome);
      if (outcome.status !== 'delivered') logFailure(ctx, outcome, target.url, sent);
    })
    .finally(() => state.inFlight.delete(task));
  state.inFlight.add(task);
}

/** The callback URL without its query, which may carry the receiver's own secret. */
function withoutQuery(url: string): string {
  const at = url.search(/[?#]/);
  return at === -1 ? url : url.slice(0, at);
}

/** A failed attempt in the log, with what happens next: the organisation's owner asks why. */
function logFailure(ctx: DeliveryContext, outcome: Outcome, url: string, sent: SendOutcome): void {
  const answer = sent.statusCode === null ? (sent.error ?? 'no answer') : `HTTP ${sent.statusCode}`;
  const next =
    outcome.status === 'failed'
      ? 'no attempts left: marked failed (esim callbacks resend starts it again)'
      : `next attempt at ${outcome.nextAttemptAt}`;
  ctx.log.warn(
    {
      eventId: outcome.eventId,
      organisationId: outcome.organisationId,
      url: withoutQuery(url),
      attempt: outcome.attempts,
      statusCode: sent.statusCode,
      error: sent.error,
      nextAttemptAt: outcome.status === 'failed' ? null : outcome.nextAttemptAt,
    },
    `callback delivery failed: ${withoutQuery(url)} answered ${answer} (attempt ${outcome.attempts}); ${next}`,
  );
}

/** How many more events a claim may lease now: 0 while stopping or with enough queued. */
export function claimRoom(ctx: DeliveryContext, state: DeliveryState): number {
  if (state.stopping || state.claiming || state.queue.length > ctx.concurrency / 2) return 0;
  return Math.max(0, ctx.batchSize - state.queue.length - state.inFlight.size);
}

/** Starts queued sends while there is room under the concurrency bound (none once stopping). */
export function sendQueued(ctx: DeliveryContext, state: DeliveryState): void {
  // Nothing starts once the worker is stopping: a claim or a flush that ends after stop() was
  // called must not start a send that stop() would then wait for.
  while (!state.stopping && state.inFlight.size < ctx.concurrency && state.queue.length > 0) {
    const next = state.queue.shift();
    if (next !== undefined) send(ctx, state, next);
  }
}
