import type { FastifyRequest } from 'fastify';
import type { PlacedOrder } from '../../../domain/orders/placement.js';

// The balance an order placed by this request left, as placement returned it, for a version that
// answers it (v2.5's runningBalance) without reading the journal again. Kept per request, not in
// the answer: v2.1's body (and the Idempotency-Key record of it) has no such field.

const kept = new WeakMap<FastifyRequest, number | null>();

/** `present` of the order placement: the v2.1 body, and the balance kept for the request. */
export function keepingBalance<B>(
  request: FastifyRequest,
  present: (placed: PlacedOrder) => B,
): (placed: PlacedOrder) => B {
  return (placed) => {
    if (placed.balanceAfter !== undefined) kept.set(request, placed.balanceAfter);
    return present(placed);
  };
}

/**
 * The balance the order this request placed left (minor units); null when nothing was charged;
 * undefined when this request did not place it (a replay, or an order placed in the background).
 */
export function balanceLeftBy(request: FastifyRequest): number | null | undefined {
  return kept.get(request);
}
