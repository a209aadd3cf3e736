import { addDays, iso } from '../../../clock.js';
import type { Db, DialectName, Executor } from '../../../store/database.js';
import { updateAssignmentIfState } from '../../../store/repositories/assignment-repository.js';
import type { LiveAssignment } from '../../../store/repositories/network-repository.js';
import { readUsageView, touchNetwork } from '../../../store/repositories/network-repository.js';
import {
  recordDailyUsage,
  recordEsimDailyUsage,
} from '../../../store/repositories/usage-repository.js';
import type { Assignment } from './assignment.js';
import { DomainError, badRequest, conflict, notFound } from '../../errors/error-codes.js';
import type { NetworkEventSink } from './network-events.js';
import { settle } from './settle.js';
import { snapshotOf } from './snapshot.js';
import { STALE_ASSIGNMENT, transition } from './transition.js';
import { runWrite } from '../../runner/use-case-runner.js';

export interface UsageDeps {
  readonly db: Db;
  readonly dialect: DialectName;
  readonly networkEvents: NetworkEventSink;
}

export interface UsageOutcome {
  readonly iccid: string;
  readonly requestedBytes: number;
  readonly consumedBytes: number;
  readonly unservedBytes: number;
  readonly reason: string;
  readonly assignment: Assignment | undefined;
  readonly transitions: readonly string[];
}

// lastSeen is refreshed by data use at most this often, so a burst of usage reports does not
// rewrite the location row every time.
const LAST_SEEN_REFRESH_MS = 60_000;
const MAX_ATTEMPTS = 5;

/**
 * Takes `bytes` of data used by an eSIM off its bundles. The Active bundle serves it if it covers
 * the country the eSIM is attached in; with none Active, the first Queued bundle (queue order)
 * covering that country is activated. Data beyond what the serving bundle has left is not served:
 * the next bundle takes over on the next use. One read, one update, and the history and event rows
 * only when something changes.
 */
export async function recordUsage(
  deps: UsageDeps,
  iccid: string,
  bytes: number,
  at: Date,
): Promise<UsageOutcome> {
  if (!Number.isSafeInteger(bytes) || bytes <= 0) {
    throw badRequest('bytes must be a positive whole number');
  }
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await runWrite(
        { store: { db: deps.db } },
        (trx) => applyUsage(trx, deps, iccid, bytes, at),
        undefined,
      );
    } catch (error) {
      // Another report on the same eSIM won the optimistic update: read again and redo.
      const stale = error instanceof DomainError && error.code === STALE_ASSIGNMENT;
      if (!stale || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}

async function applyUsage(
  trx: Executor,
  deps: UsageDeps,
  iccid: string,
  bytes: number,
  at: Date,
): Promise<UsageOutcome> {
  const view = await readUsageView(trx, iccid, deps.dialect);
  if (view === undefined) throw notFound(`eSIM ${iccid} not found`);
  if (view.esim.state === 'deactivated') {
    throw badRequest(
      `eSIM ${iccid} is deactivated: the network no longer serves it`,
      'esim_deactivated',
    );
  }
  const network = view.network;
  if (network === undefined || !network.attached) {
    throw badRequest(`eSIM ${iccid} is not attached to a network; attach it first`);
  }
  const country = network.country;
  const transitions: string[] = [];
  const live: LiveAssignment[] = [];
  for (const item of view.live) {
    const row = await settle(trx, item.assignment, at);
    if (row !== item.assignment) transitions.push(`${item.assignment.state} -> ${row.state}`);
    live.push({ ...item, assignment: row });
  }
  const outcome = (consumed: number, reason: string, row?: Assignment): UsageOutcome => ({
    iccid,
    requestedBytes: bytes,
    consumedBytes: consumed,
    unservedBytes: bytes - consumed,
    reason,
    assignment: row,
    transitions,
  });

  // A suspended eSIM is served nothing; its bundles keep their clocks (settled above).
  if (view.esim.state === 'suspended') return outcome(0, `eSIM ${iccid} is suspended`);
  let serving = live.find((a) => a.assignment.state === 'Active');
  if (serving !== undefined && !serving.coverage.has(country)) {
    return outcome(
      0,
      `the active bundle ${serving.assignment.bundleName} does not cover ${country}`,
    );
  }
  let row: Assignment;
  if (serving === undefined) {
    serving = live.find((a) => a.assignment.state === 'Queued' && a.coverage.has(country));
    if (serving === undefined) {
      const waiting = live.some((a) => a.assignment.state === 'Processing');
      return outcome(
        0,
        waiting
          ? `no bundle covering ${country} is ready: still processing`
          : `no bundle covering ${country} is available`,
      );
    }
    row = await transition(trx, serving.assignment, 'Active', {
      at,
      changes: {
        startTime: iso(at),
        endTime: iso(addDays(at, serving.assignment.durationDays)),
      },
    });
    transitions.push('Queued -> Active');
  } else {
    row = serving.assignment;
  }

  const unlimited = row.unlimited;
  const take = unlimited ? bytes : Math.min(bytes, row.remainingBytes);
  const usedBefore = row.usedBytes;
  const counters = {
    usedBytes: usedBefore + take,
    remainingBytes: unlimited ? -1 : row.remainingBytes - take,
  };
  if (!unlimited && counters.remainingBytes === 0) {
    row = await transition(trx, row, 'Depleted', { at, changes: counters });
    transitions.push('Active -> Depleted');
  } else {
    const applied = await updateAssignmentIfState(trx, row, {
      ...counters,
      updatedAt: iso(at),
    });
    if (!applied)
      throw conflict(`assignment ${row.id} changed concurrently; retry`, STALE_ASSIGNMENT);
    row = { ...row, ...counters, updatedAt: iso(at) };
  }

  // The Overview's and the eSIM page's usage charts read these daily totals.
  if (take > 0) {
    const day = iso(at).slice(0, 10);
    await recordDailyUsage(trx, view.esim.organisationId, day, take);
    await recordEsimDailyUsage(trx, iccid, day, take);
  }

  const firstUse = network.firstUsedAt === null;
  const stale = Date.parse(network.lastSeen) + LAST_SEEN_REFRESH_MS <= at.getTime();
  if (firstUse || stale) {
    await touchNetwork(trx, iccid, {
      lastSeen: iso(at),
      ...(firstUse ? { firstUsedAt: iso(at) } : {}),
    });
  }
  await deps.networkEvents.record(
    trx,
    {
      type: 'usage',
      organisationId: view.esim.organisationId,
      iccid,
      assignment: snapshotOf(row, serving.description),
      usedBefore,
      firstUse,
    },
    at,
  );
  const reason =
    take < bytes
      ? `bundle ${row.bundleName} ran out after ${take} bytes; the rest was not served`
      : '';
  return outcome(take, reason, row);
}
