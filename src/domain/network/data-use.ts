import { recordUsage } from '../esims/lifecycle/usage.js';
import type { InboundNetworkDeps } from './inbound-deps.js';

// Inbound event: the network reports data used by the eSIM.

export interface UsageResult {
  readonly iccid: string;
  readonly requestedBytes: number;
  /** Bytes taken from a bundle; the rest was not served. */
  readonly consumedBytes: number;
  readonly unservedBytes: number;
  /** Why some bytes were not served, when any were not. */
  readonly reason: string;
  /** The bundle assignment that served the data, after the report. */
  readonly assignment:
    | {
        readonly id: string;
        readonly name: string;
        readonly state: string;
        readonly remainingBytes: number;
        readonly usedBytes: number;
      }
    | undefined;
  /** State changes this report caused, in order, e.g. "Queued -> Active". */
  readonly transitions: readonly string[];
}

/**
 * Takes the reported bytes off the eSIM's bundles (the lifecycle's recordUsage: activation,
 * depletion, history, the usage event for the callbacks), at the service clock's time.
 */
export async function recordDataUse(
  deps: InboundNetworkDeps,
  iccid: string,
  bytes: number,
): Promise<UsageResult> {
  const outcome = await recordUsage(
    { db: deps.store.db, dialect: deps.store.dialect, networkEvents: deps.networkEvents },
    iccid,
    bytes,
    deps.clock.now(),
  );
  const a = outcome.assignment;
  return {
    iccid,
    requestedBytes: outcome.requestedBytes,
    consumedBytes: outcome.consumedBytes,
    unservedBytes: outcome.unservedBytes,
    reason: outcome.reason,
    assignment:
      a === undefined
        ? undefined
        : {
            id: a.id,
            name: a.bundleName,
            state: a.state,
            remainingBytes: a.remainingBytes,
            usedBytes: a.usedBytes,
          },
    transitions: outcome.transitions,
  };
}
