import type { Clock } from '../../clock.js';
import { iso } from '../../clock.js';
import type { Db, Executor } from '../../store/database.js';
import type { CallbackEvent, DeliveryAttempt, EventStatus } from './callback-event.js';
import {
  findEvent,
  listAttempts,
  requeueEvent,
} from '../../store/repositories/callback-repository.js';
import {
  MAX_SKIPPED,
  PageTooDeep,
  listEvents,
} from '../../store/repositories/callback-list-repository.js';
import { findCallbackUrl } from '../../store/repositories/organisation-repository.js';
import { DomainError, badRequest, conflict, notFound } from '../errors/error-codes.js';
import { queueFullMessage, queueRoom } from './endpoint-health.js';
import { runWrite } from '../runner/use-case-runner.js';

// What an organisation may see and do with its deliveries: list them, read one with its
// attempts, resend one (the use case resendDelivery). The HTTP routes and the CLI both go
// through here.

// The statuses a delivery may have, and how far a page by number may skip, for the surfaces.
export { EVENT_STATUSES } from '../../store/repositories/callback-repository.js';
export { MAX_SKIPPED };

/** Statuses a resend may restart (not while a delivery is queued or under way). */
export const RESENDABLE: readonly EventStatus[] = ['failed', 'delivered', 'undeliverable'];

export interface DeliverySummary {
  id: string;
  iccid: string;
  alertType: string;
  status: EventStatus;
  attemptCount: number;
  lastStatusCode: number;
  createdAt: string;
  updatedAt: string;
  nextAttemptAt: string;
  deliveredAt: string;
  /** Utilisation only: the threshold passed (1, 50, 80 or 100 %), which tells the four apart. */
  threshold?: number;
}

export interface AttemptView {
  attemptNo: number;
  attemptedAt: string;
  url: string;
  statusCode: number;
  latencyMs: number;
  error: string;
  responseSnippet: string;
}

export interface DeliveryDetail extends DeliverySummary {
  payload: unknown;
  attempts: AttemptView[];
}

function thresholdOf(event: CallbackEvent): number | undefined {
  if (event.alertType !== 'Utilisation') return undefined;
  try {
    const threshold = (JSON.parse(event.payload) as { threshold?: unknown }).threshold;
    return typeof threshold === 'number' ? threshold : undefined;
  } catch {
    return undefined;
  }
}

export function deliverySummary(event: CallbackEvent): DeliverySummary {
  const threshold = thresholdOf(event);
  return {
    ...(threshold === undefined ? {} : { threshold }),
    id: event.id,
    iccid: event.iccid,
    alertType: event.alertType,
    status: event.status,
    attemptCount: event.attempts,
    lastStatusCode: event.lastStatus ?? 0,
    createdAt: event.createdAt,
    updatedAt: event.updatedAt,
    nextAttemptAt: event.status === 'pending' ? event.nextAttemptAt : '',
    deliveredAt: event.deliveredAt ?? '',
  };
}

function attemptView(attempt: DeliveryAttempt): AttemptView {
  return {
    attemptNo: attempt.attemptNo,
    attemptedAt: attempt.attemptedAt,
    url: attempt.url,
    statusCode: attempt.statusCode ?? 0,
    latencyMs: attempt.latencyMs,
    error: attempt.error ?? '',
    responseSnippet: attempt.responseSnippet ?? '',
  };
}

export interface DeliveryPage {
  readonly deliveries: DeliverySummary[];
  readonly total: number;
  /** The next page's key (`before`), when older deliveries lie beside the page. */
  readonly older?: string;
  /** The previous page's key (`after`), when newer deliveries lie beside the page. */
  readonly newer?: string;
}

export interface DeliveryQuery {
  readonly status?: EventStatus;
  readonly page: number;
  readonly perPage: number;
  /** The deliveries older than this key (a next link's `before`). */
  readonly before?: string;
  /** The deliveries newer than this key (a previous link's `after`); 0: the oldest. */
  readonly after?: string;
}

/**
 * A page of the organisation's deliveries, newest first: by key after a neighbour (`before`,
 * `after`), else by number, with the keys of the pages beside it where deliveries lie that way.
 * Without a status any page by number costs the same; with one, a page by number further than
 * MAX_SKIPPED deliveries from both ends is a 400 naming the keys instead.
 */
export async function listDeliveries(
  db: Db,
  organisationId: string,
  query: DeliveryQuery,
): Promise<DeliveryPage> {
  try {
    const { events, total, older, newer } = await listEvents(db, {
      organisationId,
      status: query.status,
      limit: query.perPage,
      offset: (query.page - 1) * query.perPage,
      ...(query.before === undefined ? {} : { before: query.before }),
      ...(query.after === undefined ? {} : { after: query.after }),
    });
    return {
      deliveries: events.map(deliverySummary),
      total,
      ...(older === undefined ? {} : { older }),
      ...(newer === undefined ? {} : { newer }),
    };
  } catch (e) {
    if (!(e instanceof PageTooDeep)) throw e;
    throw badRequest(
      `page ${query.page} of the ${query.status ?? ''} deliveries is more than ${MAX_SKIPPED} ` +
        'deliveries from the first and the last page: follow the next and prev links, which carry ' +
        'the key of the page beside it (before or after)',
    );
  }
}

/** The event, or 404 when it does not exist or is another organisation's (same message). */
async function ownEvent(
  db: Executor,
  organisationId: string | undefined,
  id: string,
): Promise<CallbackEvent> {
  const event = await findEvent(db, id);
  if (
    event === undefined ||
    (organisationId !== undefined && event.organisationId !== organisationId)
  ) {
    throw notFound(`callback ${id} not found`);
  }
  return event;
}

/** organisationId undefined: an operator (the CLI) may read any organisation's delivery. */
export async function getDelivery(
  db: Db,
  organisationId: string | undefined,
  id: string,
): Promise<DeliveryDetail & { organisationId: string }> {
  const event = await ownEvent(db, organisationId, id);
  const attempts = await listAttempts(db, id);
  return {
    ...deliverySummary(event),
    organisationId: event.organisationId,
    payload: JSON.parse(event.payload) as unknown,
    attempts: attempts.map(attemptView),
  };
}

export interface ResendInput {
  /** Undefined: an operator (the CLI), who may resend any organisation's delivery. */
  readonly organisationId: string | undefined;
  readonly id: string;
}

export interface ResendDeps {
  readonly store: { readonly db: Db };
  readonly clock: Clock;
  readonly config: { readonly callbackMaxPending: number };
}

/**
 * Queues a delivered, failed or undeliverable event again, with a fresh retry round, in the
 * caller's transaction. A delivery that is already queued or under way is a 409; one that does
 * not exist, or no longer does (the retention deleted it, even while this ran), is a 404; an
 * organisation without a callback URL is a 400. organisationId undefined: an operator (the CLI)
 * may resend any organisation's delivery.
 */
export async function applyResend(
  trx: Executor,
  deps: Pick<ResendDeps, 'clock' | 'config'>,
  input: ResendInput,
): Promise<DeliverySummary> {
  const { organisationId, id } = input;
  const event = await ownEvent(trx, organisationId, id);
  const callbackUrl = await findCallbackUrl(trx, event.organisationId);
  if (callbackUrl === undefined || callbackUrl === '') {
    throw badRequest('callbackUrl is not set: configure a callback URL before resending');
  }
  const maxPending = deps.config.callbackMaxPending;
  if (
    RESENDABLE.includes(event.status) &&
    (await queueRoom(trx, event.organisationId, maxPending)) <= 0
  ) {
    throw new DomainError('rate_limited', queueFullMessage(maxPending), 60);
  }
  const requeued = await requeueEvent(trx, id, RESENDABLE, iso(deps.clock.now()));
  if (requeued === undefined) {
    // The update found no resendable row: either the delivery is queued or under way, or the
    // retention deleted it since it was read above (PostgreSQL: the update waited for the
    // retention's row lock and then found the row gone). Read again, in a statement of its own
    // (a snapshot taken after that wait), to tell them apart.
    if ((await findEvent(trx, id)) === undefined) throw notFound(`callback ${id} not found`);
    throw conflict(
      `callback ${id} is already queued for delivery; only ${RESENDABLE.join(', ')} callbacks can be resent`,
      'callback_in_progress',
    );
  }
  return deliverySummary(requeued);
}

/** The resend use case (POST /v2.1/callbacks/{id}/resend, esim callbacks resend). */
export async function resendDelivery(
  deps: ResendDeps,
  organisationId: string | undefined,
  id: string,
): Promise<DeliverySummary> {
  return runWrite(deps, applyResend, { organisationId, id });
}
