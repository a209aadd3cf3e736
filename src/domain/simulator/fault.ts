// A fault the simulator injects into the API's answers (POST /_sim/faults), as the domain speaks
// of it; the store keeps it (sim-repository.ts) and returns it in this shape.

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
