import { HEALTHY, queueFullMessage, queueRoom } from '../callbacks/endpoint-health.js';
import { updateEndpointHealth } from '../../store/repositories/callback-repository.js';
import { iso } from '../../clock.js';
import type { Clock } from '../../clock.js';
import type { RandomSource } from '../../random.js';
import { readableKey } from '../../security/api-keys.js';
import type { KeyCipher } from '../../security/api-keys.js';
import type { Db, Executor } from '../../store/database.js';
import type { PreviousKey } from '../../store/repositories/api-key-repository.js';
import { listKeysInGrace } from '../../store/repositories/api-key-repository.js';
import { queueCallbackEvents } from '../../store/repositories/callback-repository.js';
import {
  findCallbackUrl,
  findEncryptedApiKey,
} from '../../store/repositories/organisation-repository.js';
import type { AuditActor } from '../audit/audit-log.js';
import { audit } from '../audit/audit-log.js';
import type { DeliverySummary } from '../callbacks/deliveries.js';
import { applyResend } from '../callbacks/deliveries.js';
import { DomainError, badRequest, conflict, notFound } from '../errors/error-codes.js';
import { luhnCheckDigit, luhnValid } from '../esims/esim-issuer.js';
import { runWrite } from '../runner/use-case-runner.js';
import { takeAttempt } from './attempts.js';

// The portal's API & callbacks page: the API key (masked until revealed, each reveal audited),
// and the callback tools an organisation needs to check its receiver: a test event through the
// real delivery path, and resend. Rotation and the callback settings are the organisation rules
// of domain/organisations/organisation-changes.ts, the same ones the CLI runs.

export interface KeyDeps {
  readonly store: { readonly db: Db };
  readonly cipher: KeyCipher;
  readonly clock: Clock;
}

/** The key with all but its prefix and last four characters hidden. */
export function maskApiKey(key: string): string {
  const prefix = /^[a-z]+_/.exec(key)?.[0] ?? '';
  return `${prefix}${'•'.repeat(12)}${key.slice(-4)}`;
}

/** What the portal shows for a key this server's master key cannot read. */
export const UNREADABLE_KEY = "unreadable with this server's master key: rotate the key";

async function encryptedKey(deps: KeyDeps, organisationId: string): Promise<string> {
  const encrypted = await findEncryptedApiKey(deps.store.db, organisationId);
  if (encrypted === undefined) throw notFound(`organisation ${organisationId} not found`);
  return encrypted;
}

/**
 * The stored key in clear. One sealed under another master key (a re-key not finished, an
 * instance with another MASTER_KEY) is a 409 that says what to do, not a 500.
 */
async function currentKey(deps: KeyDeps, organisationId: string): Promise<string> {
  const key = readableKey(deps.cipher, await encryptedKey(deps, organisationId));
  if (key === undefined) throw conflict(`the API key is ${UNREADABLE_KEY}`);
  return key;
}

export interface KeySummary {
  readonly masked: string;
  /** Rotated-out keys that still authenticate, newest first (hashes only: never shown). */
  readonly inGrace: readonly PreviousKey[];
}

export async function readKeySummary(deps: KeyDeps, organisationId: string): Promise<KeySummary> {
  const [encrypted, inGrace] = await Promise.all([
    encryptedKey(deps, organisationId),
    listKeysInGrace(deps.store.db, organisationId, iso(deps.clock.now())),
  ]);
  // The page still opens, so that an Admin can rotate a key this server cannot read.
  const key = readableKey(deps.cipher, encrypted);
  return { masked: key === undefined ? UNREADABLE_KEY : maskApiKey(key), inGrace };
}

interface Acting {
  readonly organisationId: string;
  readonly who: AuditActor;
}

async function recordReveal(tx: Executor, deps: KeyDeps, input: Acting): Promise<void> {
  await audit(tx, input.who, {
    action: 'api_key.revealed',
    organisationId: input.organisationId,
    at: deps.clock.now(),
  });
}

/** The whole key, for a user who asked to see it; the reveal is audited first. */
export async function revealApiKey(
  deps: KeyDeps,
  organisationId: string,
  who: AuditActor,
): Promise<string> {
  const key = await currentKey(deps, organisationId);
  await runWrite(deps, recordReveal, { organisationId, who });
  return key;
}

export interface CallbackToolDeps {
  readonly store: { readonly db: Db };
  readonly clock: Clock;
  /** Real time: the test-event limit is per real minute, whatever the simulator clock does. */
  readonly wallClock: Clock;
  readonly random: RandomSource;
  readonly config: {
    readonly callbackTestEventsPerMinute: number;
    readonly callbackMaxPending: number;
  };
}

/** Test events an organisation may queue per minute (CALLBACK_TEST_EVENTS_PER_MINUTE). */
export function testEventLimitMessage(limit: number): string {
  return `at most ${limit} test events a minute: wait a minute and send again`;
}

/**
 * The ICCID of a test event: `89`, 16 random digits and a wrong check digit, so no eSIM ever has
 * it. Each test event has its own, so one a receiver keeps refusing (delivery is in order per
 * eSIM) never holds back the next test.
 */
export function testEventIccid(random: RandomSource): string {
  const digits = random
    .uuid()
    .replace(/-/g, '')
    .split('')
    .map((c) => String(parseInt(c, 16) % 10))
    .join('')
    .slice(0, 16);
  const payload = `89${digits}`;
  return `${payload}${(luhnCheckDigit(payload) + 1) % 10}`;
}

/** Whether an ICCID is one of a test event's (its check digit is wrong). */
export function isTestEventIccid(iccid: string): boolean {
  return /^89\d{17}$/.test(iccid) && !luhnValid(iccid);
}

/** The test event in the caller's transaction: the outbox row and its audit row. */
async function queueTestEvent(
  tx: Executor,
  deps: CallbackToolDeps,
  input: Acting & { readonly id: string; readonly iccid: string },
): Promise<void> {
  const { organisationId, id, iccid } = input;
  const url = await findCallbackUrl(tx, organisationId);
  if (url === undefined) throw notFound(`organisation ${organisationId} not found`);
  if (url === '') {
    throw badRequest(
      'callbackUrl is not set: configure a callback URL before sending a test event',
    );
  }
  // Counted in the transaction: over the limit the refusal rolls the count back too, so the
  // window ends a minute after the first test event of the minute.
  const limit = deps.config.callbackTestEventsPerMinute;
  const taken = await takeAttempt(
    tx,
    [{ key: `test-event:${organisationId}`, limit }],
    { windowMs: 60_000, lockMs: 60_000 },
    deps.wallClock.now(),
  );
  if (!taken.allowed) throw new DomainError('rate_limited', testEventLimitMessage(limit), 60);
  const maxPending = deps.config.callbackMaxPending;
  if ((await queueRoom(tx, organisationId, maxPending)) <= 0) {
    throw new DomainError('rate_limited', queueFullMessage(maxPending), 60);
  }
  const at = deps.clock.now();
  await queueCallbackEvents(
    tx,
    [
      {
        id,
        organisationId,
        iccid,
        alertType: 'FirstAttachment',
        body: { iccid, alertType: 'FirstAttachment', country: 'GB' },
        deliverable: true,
      },
    ],
    iso(at),
  );
  await audit(tx, input.who, {
    action: 'callback.test_sent',
    organisationId,
    at,
    details: { eventId: id },
  });
}

/**
 * Queues a test usage callback (FirstAttachment in GB of a test ICCID) through the outbox, so
 * it is signed, retried and logged like any other delivery. Returns its id.
 */
export async function sendTestEvent(
  deps: CallbackToolDeps,
  organisationId: string,
  who: AuditActor,
): Promise<string> {
  const id = deps.random.uuid();
  await runWrite(deps, queueTestEvent, {
    organisationId,
    who,
    id,
    iccid: testEventIccid(deps.random),
  });
  return id;
}

async function resendAudited(
  tx: Executor,
  deps: CallbackToolDeps,
  input: Acting & { readonly id: string },
): Promise<DeliverySummary> {
  const summary = await applyResend(tx, deps, {
    organisationId: input.organisationId,
    id: input.id,
  });
  await audit(tx, input.who, {
    action: 'callback.resent',
    organisationId: input.organisationId,
    at: deps.clock.now(),
    details: { eventId: input.id },
  });
  return summary;
}

/** Resends one of the organisation's deliveries (the API's rules), audited in its transaction. */
export function resendFromPortal(
  deps: CallbackToolDeps,
  organisationId: string,
  id: string,
  who: AuditActor,
): Promise<DeliverySummary> {
  return runWrite(deps, resendAudited, { organisationId, id, who });
}

async function resumeAudited(tx: Executor, deps: CallbackToolDeps, input: Acting): Promise<void> {
  await updateEndpointHealth(tx, input.organisationId, HEALTHY);
  await audit(tx, input.who, {
    action: 'callback.resumed',
    organisationId: input.organisationId,
    at: deps.clock.now(),
    details: {},
  });
}

/**
 * Resumes deliveries to an endpoint paused (or backed off) for want of answers: its waiting
 * callbacks are claimed again at once, in their order.
 */
export function resumeDeliveries(
  deps: CallbackToolDeps,
  organisationId: string,
  who: AuditActor,
): Promise<void> {
  return runWrite(deps, resumeAudited, { organisationId, who });
}
