// A fault the simulator injects into the API's answers (POST /_sim/faults, the portal's simulator
// console), as the domain speaks of it; the store keeps it (sim-repository.ts) and returns it in
// this shape. normaliseRoutePattern reads the route a fault is given, for both surfaces.

export interface SimFault {
  readonly id: string;
  /** The route template or path it applies to, e.g. /v2.1/orders. */
  readonly route: string;
  /** The HTTP method it applies to, upper case. */
  readonly method: string;
  /** The status it answers with; null for latency alone. */
  readonly status: number | null;
  /** How many more requests it applies to; null for every one. */
  readonly remaining: number | null;
  /** The chance (0 to 1) it applies to a request; null for every one. */
  readonly probability: number | null;
  /** Latency added before the answer, milliseconds. */
  readonly latencyMs: number;
  readonly createdAt: string;
}

const API_PREFIX = '/v2.1';
/** A version prefix (/v2.1 ... /v2.5) at the start of a pattern. */
const VERSION_PREFIX = /^\/v2\.\d+(\/|$)/;

/**
 * '/orders' and '/v2.1/orders' mean the same; a later version's path (/v2.4/orders) names that
 * version's route. A trailing slash is ignored.
 */
export function normaliseRoutePattern(route: string): string {
  let pattern = route.trim();
  if (!pattern.startsWith('/')) pattern = `/${pattern}`;
  if (!VERSION_PREFIX.test(pattern)) pattern = API_PREFIX + pattern;
  return pattern.length > 1 ? pattern.replace(/\/+$/, '') : pattern;
}
