import { addSeconds, iso } from '../clock.js';
import type { DeliveryTarget } from '../domain/callbacks/delivery-queue.js';
import type { RandomSource } from '../random.js';
import { CALLBACK_HEADERS, CALLBACK_USER_AGENT } from './headers.js';
import type { CallbackEvent, DeliveryAttempt } from '../domain/callbacks/callback-event.js';
import { bodyKept } from '../domain/callbacks/callback-event.js';
import type { Outcome } from '../store/repositories/callback-repository.js';
import type { OutgoingCallback, SendOutcome } from './http-sender.js';
import type { CallbackV3 } from '../domain/callbacks/callback-body.js';
import { toV2 } from '../domain/callbacks/callback-body.js';
import { RETRY_AFTER_STATUSES, parseRetryAfter, retryDelaySeconds } from './retry-schedule.js';
import { signBody } from './signer.js';

// One delivery turn, minus the I/O: the request for an event (body by version, headers,
// signature) and the event's next state from what the receiver answered.

/** Where an event goes and the key that signs it (claimed with the event). */
export type Target = DeliveryTarget;

/**
 * The request for one attempt. V3 sends the stored event bytes as they are; V2 sends the reduced
 * shape derived from them. The signature covers exactly the bytes sent.
 */
export function buildRequest(
  event: CallbackEvent,
  target: Target,
  attemptNo: number,
  instance: string,
): OutgoingCallback {
  const v3 = target.version === 'V3';
  const body = Buffer.from(
    v3 ? event.payload : JSON.stringify(toV2(JSON.parse(event.payload) as CallbackV3)),
    'utf8',
  );
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    [CALLBACK_HEADERS.userAgent]: `${CALLBACK_USER_AGENT} instance/${instance}`,
    [CALLBACK_HEADERS.eventId]: event.id,
    [CALLBACK_HEADERS.timestamp]: event.createdAt,
    [CALLBACK_HEADERS.attempt]: String(attemptNo),
  };
  // A V3 target without a key is never sent (callback-stages.ts hands its events back).
  if (v3 && target.apiKey !== undefined) {
    headers[CALLBACK_HEADERS.signature] = signBody(body, target.apiKey);
  }
  return { url: target.url, body, headers };
}

export interface Turn {
  readonly event: CallbackEvent;
  readonly worker: string;
  readonly now: Date;
  readonly schedule: readonly number[];
  readonly random: RandomSource;
}

/** Nothing to send to: the organisation has no callback URL (any more). */
export function undeliverable(turn: Turn): Outcome {
  const at = iso(turn.now);
  return {
    eventId: turn.event.id,
    organisationId: turn.event.organisationId,
    worker: turn.worker,
    at,
    status: 'undeliverable',
    attempts: turn.event.attempts,
    nextAttemptAt: at,
    lastStatus: turn.event.lastStatus,
  };
}

export const isAcknowledged = (status: number | null): boolean =>
  status !== null && status >= 200 && status < 300;

/**
 * The next state after an attempt (logged with the request it made): any 2xx acknowledges; otherwise the next wait comes from the
 * retry schedule (or the receiver's Retry-After on 429/503), and an exhausted round fails.
 */
export function afterAttempt(
  turn: Turn,
  request: OutgoingCallback,
  attemptedAt: Date,
  sent: SendOutcome,
): Outcome {
  const { event, now } = turn;
  const attemptNo = event.attempts + 1;
  const at = iso(now);
  const attempt: DeliveryAttempt = {
    eventId: event.id,
    attemptNo,
    attemptedAt: iso(attemptedAt),
    url: request.url,
    statusCode: sent.statusCode,
    latencyMs: sent.latencyMs,
    error: sent.error,
    responseSnippet: sent.responseSnippet,
    // What was sent, as sent: the simulator console shows it (024-console). A body that is the
    // event's payload as stored (every V3 attempt's) is not kept a second time.
    requestHeaders: JSON.stringify(request.headers),
    requestBody: bodyKept(request.body, event.payload),
  };
  const common = {
    eventId: event.id,
    organisationId: event.organisationId,
    worker: turn.worker,
    at,
    attempts: attemptNo,
    lastStatus: sent.statusCode,
    attempt,
  };
  if (isAcknowledged(sent.statusCode)) return { ...common, status: 'delivered', nextAttemptAt: at };
  const inRound = attemptNo - event.retryFrom;
  const scheduled = retryDelaySeconds(turn.schedule, inRound, turn.random);
  if (scheduled === undefined) return { ...common, status: 'failed', nextAttemptAt: at };
  const asked =
    sent.statusCode !== null && RETRY_AFTER_STATUSES.has(sent.statusCode)
      ? parseRetryAfter(sent.retryAfter, now)
      : undefined;
  return { ...common, status: 'pending', nextAttemptAt: iso(addSeconds(now, asked ?? scheduled)) };
}
