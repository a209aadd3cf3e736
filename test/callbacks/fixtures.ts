import type { CallbackTransport, OutgoingCallback } from '../../src/callbacks/http-sender.js';
import type {
  AssignmentSnapshot,
  NetworkEvent,
} from '../../src/domain/esims/lifecycle/network-events.js';
import type { CallbackWorker, CallbackWorkerOptions } from '../../src/workers/callback-delivery.js';
import { createCallbackWorker } from '../../src/workers/callback-delivery.js';
import type { TestApp } from '../harness.js';

// Fixtures for the callback suites: network events recorded through the real sink (as the
// lifecycle does, inside a transaction) and a delivery worker on the test app's dependencies.

let serial = 0;

export function snapshot(overrides: Partial<AssignmentSnapshot> = {}): AssignmentSnapshot {
  serial += 1;
  const initial = overrides.initialBytes ?? 1_000_000_000;
  const used = overrides.usedBytes ?? 0;
  return {
    id: `asg-${serial}`,
    reference: `ref-${serial}`,
    bundleName: 'esim_1GB_7D_GB_V2',
    description: 'eSIM, 1GB, 7 Days, United Kingdom, V2',
    state: 'Active',
    initialBytes: initial,
    remainingBytes: initial - used,
    usedBytes: used,
    unlimited: false,
    startTime: '2025-01-01T00:00:00.000Z',
    endTime: '2025-01-08T00:00:00.000Z',
    ...overrides,
  };
}

export const ICCID = '8944000000000000014';

/** Records one usage report through deps.networkEvents in its own transaction. */
export async function recordUsage(
  t: TestApp,
  organisationId: string,
  assignment: AssignmentSnapshot,
  usedBefore: number,
  options: { firstUse?: boolean; iccid?: string } = {},
): Promise<void> {
  const event: NetworkEvent = {
    type: 'usage',
    organisationId,
    iccid: options.iccid ?? ICCID,
    assignment,
    usedBefore,
    firstUse: options.firstUse ?? false,
  };
  await t.deps.store.db
    .transaction()
    .execute((trx) => t.deps.networkEvents.record(trx, event, t.deps.clock.now()));
}

/** One Utilisation event (the 1 % threshold) for the organisation; returns nothing. */
export async function oneEvent(t: TestApp, organisationId: string): Promise<void> {
  await recordUsage(t, organisationId, snapshot({ usedBytes: 10_000_000 }), 0);
}

/** A transport that answers every callback 200 at once, keeping what it sent in `sent`. */
export function instantTransport(sent: OutgoingCallback[] = []): CallbackTransport {
  return {
    send: (request) => {
      sent.push(request);
      return Promise.resolve({
        statusCode: 200,
        latencyMs: 0,
        error: null,
        responseSnippet: null,
        retryAfter: undefined,
      });
    },
    close: () => undefined,
  };
}

export function workerFor(t: TestApp, options: CallbackWorkerOptions = {}): CallbackWorker {
  return createCallbackWorker(t.deps, { warn: () => undefined }, options);
}

/** The organisation's deliveries through the HTTP API. */
export async function deliveries(
  t: TestApp,
  apiKey: string,
  query = '',
): Promise<{ id: string; status: string; alertType: string; attemptCount: number }[]> {
  const res = await t.request(apiKey, { method: 'GET', url: `/v2.1/callbacks${query}` });
  if (res.statusCode !== 200) throw new Error(`GET /v2.1/callbacks: ${res.statusCode} ${res.body}`);
  return (
    res.json() as {
      callbacks: { id: string; status: string; alertType: string; attemptCount: number }[];
    }
  ).callbacks;
}
