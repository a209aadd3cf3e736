import { addSeconds, iso } from '../../clock.js';
import type { Executor } from '../../store/database.js';
import type { EndpointHealth } from '../../store/repositories/callback-repository.js';
import { findEndpoint } from '../../store/repositories/callback-repository.js';

// The health of an organisation's callback endpoint, from the attempts' answers. An attempt that
// gets no answer (timeout, refused connection, blocked address) counts a failure; any answer,
// even an error status, means the endpoint is there (its events follow their own retry
// schedule) and clears the count. After each unanswered attempt the whole endpoint is backed off
// (1 s, doubled per failure, up to CALLBACK_BACKOFF_MAX_SECONDS): none of its events is claimed
// until then. After CALLBACK_PAUSE_AFTER failures in a row it is paused: nothing is sent until
// someone resumes it (the portal, or saving the callback settings).

export type { EndpointHealth };

export interface HealthRules {
  readonly callbackPauseAfter: number;
  readonly callbackBackoffMaxSeconds: number;
}

export const HEALTHY: EndpointHealth = { failures: 0, backoffUntil: null, pausedAt: null };

/** The endpoint's health after these attempts (in the order they ended), at `now`. */
export function afterAnswers(
  before: EndpointHealth,
  answered: readonly boolean[],
  now: Date,
  rules: HealthRules,
): EndpointHealth {
  let failures = before.failures;
  let pausedAt = before.pausedAt;
  for (const ok of answered) {
    failures = ok ? 0 : failures + 1;
    if (ok) pausedAt = null;
    else if (failures >= rules.callbackPauseAfter && pausedAt === null) pausedAt = iso(now);
  }
  if (failures === 0) return HEALTHY;
  const wait = Math.min(2 ** Math.min(failures - 1, 30), rules.callbackBackoffMaxSeconds);
  return { failures, backoffUntil: iso(addSeconds(now, wait)), pausedAt };
}

/** What the portal shows of an endpoint. */
export interface EndpointStatus {
  /** Events pending or being delivered. */
  readonly openEvents: number;
  readonly failures: number;
  /** Set while the endpoint is backed off: no event is claimed before it. */
  readonly backoffUntil: string | null;
  /** Set while the endpoint is paused. */
  readonly pausedAt: string | null;
}

export async function readEndpointStatus(
  db: Executor,
  organisationId: string,
  now: Date,
): Promise<EndpointStatus> {
  const endpoint = await findEndpoint(db, organisationId);
  const backoff = endpoint?.backoffUntil ?? null;
  return {
    openEvents: endpoint?.openEvents ?? 0,
    failures: endpoint?.failures ?? 0,
    backoffUntil: backoff !== null && backoff > iso(now) ? backoff : null,
    pausedAt: endpoint?.pausedAt ?? null,
  };
}

/** Open events the organisation may still queue under CALLBACK_MAX_PENDING. */
export async function queueRoom(
  trx: Executor,
  organisationId: string,
  maxPending: number,
): Promise<number> {
  const endpoint = await findEndpoint(trx, organisationId);
  return maxPending - (endpoint?.openEvents ?? 0);
}

/** The message of a refusal when the organisation's queue is full. */
export function queueFullMessage(maxPending: number): string {
  return `${maxPending} callbacks are already waiting for delivery: wait for them to be delivered (or resume a paused endpoint) and try again`;
}
