import type { NetworkEvent } from '../esims/lifecycle/network-events.js';

// Which usage callbacks a network event calls for. Pure: the outbox writer turns the answer into
// rows, in the same transaction as the change the network reported.

/** Percent used of the Active bundle at which a Utilisation alert is sent, once each. */
export const UTILISATION_THRESHOLDS = [1, 50, 80, 100] as const;

export type DueAlert =
  | { readonly type: 'Utilisation'; readonly threshold: number }
  | { readonly type: 'FirstUse' }
  | { readonly type: 'FirstAttachment' }
  | { readonly type: 'CountryChange' };

/**
 * Thresholds passed by a usage report: used before < threshold <= used after, compared in
 * integers (used * 100 >= threshold * initial) so 1 % of an odd byte count is exact. A report
 * that jumps several thresholds yields each of them, lowest first, so a receiver that acts on
 * "80 %" is not skipped by a large report. Unlimited bundles have no thresholds.
 */
export function crossedThresholds(
  initialBytes: number,
  usedBefore: number,
  usedAfter: number,
): number[] {
  if (initialBytes <= 0 || usedAfter <= usedBefore) return [];
  return UTILISATION_THRESHOLDS.filter(
    (t) => usedBefore * 100 < t * initialBytes && usedAfter * 100 >= t * initialBytes,
  );
}

/**
 * The alerts an event calls for. `alreadySent` lists the utilisation thresholds recorded on the
 * assignment, so a threshold is alerted once per assignment even if a report were replayed.
 */
export function dueAlerts(event: NetworkEvent, alreadySent: readonly number[] = []): DueAlert[] {
  if (event.type === 'attach') {
    if (event.firstAttachment) return [{ type: 'FirstAttachment' }];
    if (event.previousCountry !== null && event.previousCountry !== event.country) {
      return [{ type: 'CountryChange' }];
    }
    return [];
  }
  const alerts: DueAlert[] = event.firstUse ? [{ type: 'FirstUse' }] : [];
  const a = event.assignment;
  if (a.unlimited) return alerts;
  for (const threshold of crossedThresholds(a.initialBytes, event.usedBefore, a.usedBytes)) {
    if (!alreadySent.includes(threshold)) alerts.push({ type: 'Utilisation', threshold });
  }
  return alerts;
}
