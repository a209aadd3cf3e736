import type { Clock } from '../../clock.js';
import type { Simulator } from './simulator.js';
import type { Store } from '../../store/database.js';
import { iso } from '../../clock.js';
import type { ProfileStatus } from '../network/profile.js';
import { findOwnedEsim } from '../../store/repositories/esim-repository.js';
import { listAttempts } from '../../store/repositories/callback-repository.js';
import type { MailRecord } from '../../store/repositories/portal-repository.js';
import { listOrganisationMail } from '../../store/repositories/portal-repository.js';
import type { SmsRow } from '../../store/repositories/sms-repository.js';
import { listOrganisationSms } from '../../store/repositories/sms-repository.js';
import type { DeliveryDetail } from '../callbacks/deliveries.js';
import { getDelivery } from '../callbacks/deliveries.js';
import { runLifecycleScheduler } from '../esims/lifecycle/scheduler.js';
import { badRequest, notFound } from '../errors/error-codes.js';
import { advanceSimulatorClock } from './simulator-control.js';

// What the simulator console of the portal does, for one organisation: the same steps /_sim
// takes (the simulated network's events, the clock, faults), but an eSIM is driven only when it
// is the organisation's own, and the outboxes and callbacks read are its own. Simulator mode
// only: without a simulator every function refuses as if there were no such thing.

/** What the console uses of the service: its store, clock and (in simulator mode) simulator. */
export interface ConsoleDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly simulator: Simulator | undefined;
}

export interface SimulatedClock {
  /** RFC 3339 UTC. */
  readonly now: string;
  /** How far the simulated clock is ahead of real time. */
  readonly offsetSeconds: number;
}

function simulatorOf(deps: ConsoleDeps): Simulator {
  if (deps.simulator === undefined) throw notFound('the simulator is not running');
  return deps.simulator;
}

/** The simulated time and its offset; undefined outside simulator mode. */
export function simulatedClock(deps: ConsoleDeps): SimulatedClock | undefined {
  const simulator = deps.simulator;
  if (simulator === undefined) return undefined;
  return {
    now: iso(simulator.clock.now()),
    offsetSeconds: Math.round(simulator.clock.offset / 1000),
  };
}

/** The longest single move of the clock: ten years. */
export const MAX_ADVANCE_SECONDS = 10 * 366 * 86_400;

/**
 * Moves the simulated clock forward and runs the lifecycle scheduler once, so whatever falls
 * due by the new time (processing, expiry, lapses) is applied on return.
 */
export async function advanceSimulatedTime(deps: ConsoleDeps, seconds: number) {
  const simulator = simulatorOf(deps);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_ADVANCE_SECONDS) {
    throw badRequest('the time to advance must be more than 0 and at most ten years');
  }
  const now = await advanceSimulatorClock(deps, simulator.clock, seconds);
  const run = await runLifecycleScheduler({ db: deps.store.db, clock: deps.clock });
  return { now: iso(now), offsetSeconds: simulator.clock.offset / 1000, ...run };
}

/** 404 unless the eSIM is the organisation's (the same answer as an ICCID that does not exist). */
async function ownEsim(deps: ConsoleDeps, organisationId: string, iccid: string): Promise<void> {
  const esim = await findOwnedEsim(deps.store.db, organisationId, iccid);
  if (esim === undefined) throw notFound(`eSIM ${iccid} not found`);
}

export async function installOwnEsim(
  deps: ConsoleDeps,
  organisationId: string,
  iccid: string,
  status: ProfileStatus,
) {
  const simulator = simulatorOf(deps);
  await ownEsim(deps, organisationId, iccid);
  return simulator.events.installProfile(iccid, status);
}

/** Attaches (or moves) the eSIM to a network of the country. */
export async function attachOwnEsim(
  deps: ConsoleDeps,
  organisationId: string,
  iccid: string,
  country: string,
) {
  const simulator = simulatorOf(deps);
  await ownEsim(deps, organisationId, iccid);
  return simulator.events.attach(iccid, { country });
}

export async function useDataOnOwnEsim(
  deps: ConsoleDeps,
  organisationId: string,
  iccid: string,
  bytes: number,
) {
  const simulator = simulatorOf(deps);
  await ownEsim(deps, organisationId, iccid);
  return simulator.events.reportUsage(iccid, bytes);
}

/** The organisation's own SMS (to its eSIMs) and mail (to its users), newest first. */
export async function readOwnOutboxes(
  deps: ConsoleDeps,
  organisationId: string,
  limit: number,
): Promise<{ sms: SmsRow[]; mail: MailRecord[] }> {
  simulatorOf(deps);
  const [sms, mail] = await Promise.all([
    listOrganisationSms(deps.store.db, organisationId, limit),
    listOrganisationMail(deps.store.db, organisationId, limit),
  ]);
  return { sms, mail };
}

export interface SentRequest {
  readonly attemptNo: number;
  readonly attemptedAt: string;
  readonly url: string;
  readonly statusCode: number;
  /** The headers sent; empty for an attempt made before they were kept. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body sent, as sent; empty likewise. */
  readonly body: string;
  readonly responseSnippet: string;
  readonly error: string;
}

/** One of the organisation's deliveries with what each attempt sent (404 when not its own). */
export async function inspectDelivery(
  deps: ConsoleDeps,
  organisationId: string,
  id: string,
): Promise<{ delivery: DeliveryDetail; requests: SentRequest[] }> {
  simulatorOf(deps);
  const delivery = await getDelivery(deps.store.db, organisationId, id);
  const attempts = await listAttempts(deps.store.db, id);
  const requests = attempts.map((a) => ({
    attemptNo: a.attemptNo,
    attemptedAt: a.attemptedAt,
    url: a.url,
    statusCode: a.statusCode ?? 0,
    headers: parseHeaders(a.requestHeaders),
    body: a.requestBody ?? '',
    responseSnippet: a.responseSnippet ?? '',
    error: a.error ?? '',
  }));
  return { delivery, requests };
}

function parseHeaders(raw: string | null): Record<string, string> {
  if (raw === null || raw === '') return {};
  try {
    const parsed = JSON.parse(raw) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}
