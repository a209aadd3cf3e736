import type { KeyCipher } from '../../security/api-keys.js';
import type { Db, DialectName, Executor } from '../../store/database.js';
import type { Outcome } from '../../store/repositories/callback-repository.js';
import type { CallbackEvent } from './callback-event.js';
import {
  claimDueEvents,
  findEvent,
  findTargets,
  lockEndpoints,
  reclaimExpired,
  recordOutcomes,
  releaseEvents,
  updateEndpointHealth,
} from '../../store/repositories/callback-repository.js';
import type { HealthRules } from './endpoint-health.js';
import { afterAnswers } from './endpoint-health.js';
import type { CallbackVersion } from '../organisations/organisation.js';
import { runWrite } from '../runner/use-case-runner.js';

// The delivery queue of usage callbacks, as the delivery worker moves it: claim due events
// (a lease in the row), hand unsent ones back, put lapsed leases back, record what the receivers
// answered. The worker's stages call these and only these; the rows are the queue.

export interface DeliveryQueueDeps {
  readonly store: { readonly db: Db; readonly dialect: DialectName };
  readonly cipher: KeyCipher;
  readonly config: HealthRules & { readonly callbackOrgConcurrency: number };
}

/** Where an organisation's callbacks go, and the key that signs them (V3). */
export interface DeliveryTarget {
  readonly url: string;
  readonly version: CallbackVersion;
  /**
   * V3: the organisation's current API key, the signing key; undefined for V2 (unsigned) and
   * when the stored key does not decrypt with this master key (`unreadableKey` says why).
   */
  readonly apiKey: string | undefined;
  readonly unreadableKey?: string;
}

/**
 * The signing key of a V3 target. One organisation's key that does not decrypt (a re-key not
 * finished, an instance with another MASTER_KEY) holds back that organisation's events (the
 * worker hands them back unsent), never the claim that holds every organisation's events.
 */
function signingKey(
  cipher: KeyCipher,
  encrypted: string,
): Pick<DeliveryTarget, 'apiKey' | 'unreadableKey'> {
  try {
    return { apiKey: cipher.decrypt(encrypted) };
  } catch (error) {
    return {
      apiKey: undefined,
      unreadableKey: error instanceof Error ? error.message : String(error),
    };
  }
}

export interface ClaimedDeliveries {
  readonly events: CallbackEvent[];
  /** By organisation id; an organisation without a callback URL has none. */
  readonly targets: ReadonlyMap<string, DeliveryTarget>;
}

export interface DeliveryClaim {
  /** Service time: what is due. */
  readonly now: string;
  /** Real time: until when the claim holds. */
  readonly leaseUntil: string;
  readonly worker: string;
  readonly limit: number;
  /** Real time: the round-robin order of organisations. */
  readonly servedAt: string;
  /** Organisations to leave alone: their callbacks cannot be signed here (callback-stages.ts). */
  readonly skip?: readonly string[];
}

/** A claim that failed after the outcomes given with it were recorded in a transaction of their own. */
export class ClaimFailed extends Error {
  constructor(readonly reason: unknown) {
    super(
      `could not claim callbacks: ${reason instanceof Error ? reason.message : String(reason)}`,
    );
    this.name = 'ClaimFailed';
  }
}

/**
 * Leases up to `limit` due events to the worker, with where each organisation's go. `outcomes`,
 * the answers to earlier sends not yet recorded, are recorded first (as recordDeliveryOutcomes
 * would): they free room under the organisations' caps for this claim. On SQLite, which runs one
 * writer at a time, in the same transaction, so the two share one commit; should it fail, the
 * outcomes are recorded alone before ClaimFailed is thrown, so a claim that cannot be made never
 * holds back what the receivers said. On PostgreSQL in a transaction of their own just before:
 * recording locks the answered organisations' endpoint rows and a claim then updates those of the
 * organisations it serves, so two instances doing both in one transaction could each hold a row
 * the other waits for.
 */
export async function claimDeliveries(
  deps: DeliveryQueueDeps,
  claim: DeliveryClaim,
  outcomes: readonly Outcome[] = [],
): Promise<ClaimedDeliveries> {
  const claimIn = (trx: Executor): Promise<CallbackEvent[]> =>
    claimDueEvents(trx, deps.store.dialect, {
      ...claim,
      perOrganisation: deps.config.callbackOrgConcurrency,
    });
  let events: CallbackEvent[];
  if (outcomes.length === 0) {
    events = await runWrite(deps, (trx) => claimIn(trx), undefined);
  } else if (deps.store.dialect === 'postgres') {
    await recordDeliveryOutcomes(deps, outcomes);
    try {
      events = await runWrite(deps, (trx) => claimIn(trx), undefined);
    } catch (error) {
      throw new ClaimFailed(error);
    }
  } else {
    try {
      events = await runWrite(
        deps,
        async (trx) => {
          await applyDeliveryOutcomes(trx, deps, outcomes);
          return claimIn(trx);
        },
        undefined,
      );
    } catch (error) {
      await recordDeliveryOutcomes(deps, outcomes);
      throw new ClaimFailed(error);
    }
  }
  const targets = new Map<string, DeliveryTarget>();
  if (events.length === 0) return { events, targets };
  const orgIds = [...new Set(events.map((e) => e.organisationId))];
  for (const org of await findTargets(deps.store.db, orgIds)) {
    if (org.callbackUrl === '') continue;
    targets.set(org.id, {
      url: org.callbackUrl,
      version: org.callbackVersion,
      ...(org.callbackVersion === 'V3'
        ? signingKey(deps.cipher, org.encryptedApiKey)
        : { apiKey: undefined }),
    });
  }
  return { events, targets };
}

/**
 * Throws unless the store's connection can read the callback outbox: a connection to another
 * database (or none) could only fail every claim, so a worker checks it before its first turn.
 */
export async function checkDeliveryStore(deps: Pick<DeliveryQueueDeps, 'store'>): Promise<void> {
  await findEvent(deps.store.db, '');
}

/**
 * Puts events whose lease lapsed (their worker died or hung) back in the queue; how many.
 * `leaseNow` is real time, `at` service time.
 */
export async function reclaimLapsedDeliveries(
  deps: Pick<DeliveryQueueDeps, 'store'>,
  times: { readonly leaseNow: string; readonly at: string },
): Promise<number> {
  return reclaimExpired(deps.store.db, times);
}

/** Hands the worker's leased but unsent events back, so another worker takes them at once. */
export async function releaseDeliveries(
  deps: Pick<DeliveryQueueDeps, 'store'>,
  ids: readonly string[],
  worker: string,
  at: string,
): Promise<void> {
  await releaseEvents(deps.store.db, ids, worker, at);
}

/**
 * Records a batch of outcomes in the caller's transaction (see recordDeliveryOutcomes), and what
 * their answers say of each organisation's endpoint (endpoint-health.ts).
 */
export async function applyDeliveryOutcomes(
  trx: Executor,
  deps: Pick<DeliveryQueueDeps, 'store' | 'config'>,
  outcomes: readonly Outcome[],
): Promise<void> {
  const answers = new Map<string, { answered: boolean[]; at: string }>();
  const organisations = new Set<string>();
  for (const o of outcomes) {
    organisations.add(o.organisationId);
    if (o.attempt === undefined) continue;
    const seen = answers.get(o.organisationId) ?? { answered: [], at: o.at };
    seen.answered.push(o.attempt.statusCode !== null);
    if (o.at > seen.at) seen.at = o.at;
    answers.set(o.organisationId, seen);
  }
  // Every outcome's organisation locked first, in one order, answered or not (no callback URL):
  // the outcomes' triggers then update only rows this transaction holds.
  const endpoints = await lockEndpoints(trx, deps.store.dialect, [...organisations]);
  await recordOutcomes(trx, outcomes);
  for (const endpoint of endpoints) {
    const seen = answers.get(endpoint.organisationId);
    if (seen === undefined) continue;
    const before = {
      failures: endpoint.failures,
      backoffUntil: endpoint.backoffUntil,
      pausedAt: endpoint.pausedAt,
    };
    const after = afterAnswers(before, seen.answered, new Date(seen.at), deps.config);
    if (
      after.failures !== before.failures ||
      after.backoffUntil !== before.backoffUntil ||
      after.pausedAt !== before.pausedAt
    ) {
      await updateEndpointHealth(trx, endpoint.organisationId, after);
    }
  }
}

/**
 * Records what the receivers answered, in one transaction: the attempts logged and each event's
 * next state, fenced on the worker's lease.
 */
export async function recordDeliveryOutcomes(
  deps: Pick<DeliveryQueueDeps, 'store' | 'config'>,
  outcomes: readonly Outcome[],
): Promise<void> {
  if (outcomes.length === 0) return;
  // A deadlock or serialisation failure (PostgreSQL) rolls the whole batch back: runWrite writes
  // it again, so the sends already made are recorded and not repeated when their leases lapse.
  await runWrite(deps, (trx) => applyDeliveryOutcomes(trx, deps, outcomes), undefined);
}
