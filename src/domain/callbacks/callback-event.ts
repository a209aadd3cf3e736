// A usage callback in the outbox and the attempts to deliver it, as the delivery queue, the
// organisation's deliveries (deliveries.ts) and the simulator console read them; the store keeps
// them (callback-repository.ts) and takes and returns them in this shape.

export type EventStatus = 'pending' | 'delivering' | 'delivered' | 'failed' | 'undeliverable';

export interface CallbackEvent {
  readonly id: string;
  readonly organisationId: string;
  readonly iccid: string;
  readonly alertType: string;
  /** The full (V3) event as stored, JSON. */
  readonly payload: string;
  readonly status: EventStatus;
  /** Attempts made so far. */
  readonly attempts: number;
  /** The status code of the last answer; null when none came. */
  readonly lastStatus: number | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** When the next attempt is due (pending), or when it finished. */
  readonly nextAttemptAt: string;
  readonly deliveredAt: string | null;
  /** Attempts made before the current retry round (a resend starts a new one). */
  readonly retryFrom: number;
}

/** One attempt to deliver a callback. */
export interface DeliveryAttempt {
  readonly eventId: string;
  readonly attemptNo: number;
  readonly attemptedAt: string;
  readonly url: string;
  /** The receiver's status code; null when it did not answer. */
  readonly statusCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
  readonly responseSnippet: string | null;
  /** The headers sent, a JSON object; null for attempts logged before they were kept. */
  readonly requestHeaders: string | null;
  /**
   * The body sent; null likewise. Written as null when the body was the event's payload as stored
   * (bodyKept), which listAttempts reads back in its place.
   */
  readonly requestBody: string | null;
}

/**
 * An attempt's body as its row keeps it: null when it is the event's payload as stored, so a
 * delivery's bytes are kept once however often they are sent.
 */
export function bodyKept(body: Buffer, payload: string): string | null {
  const sent = body.toString('utf8');
  return sent === payload ? null : sent;
}
