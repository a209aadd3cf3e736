// An organisation's callback endpoint as the delivery queue sees it (021-callback-fairness): its
// turn and its health. The store keeps it (callback-repository.ts) and returns it in this shape.

export interface CallbackEndpoint {
  readonly organisationId: string;
  /** Events pending or being delivered. */
  readonly openEvents: number;
  /** Consecutive attempts that got no answer (timeout, refused). */
  readonly failures: number;
  /** Set while the endpoint is backed off: no event is claimed before it. */
  readonly backoffUntil: string | null;
  /** Set while the endpoint is paused. */
  readonly pausedAt: string | null;
}
