// The payment-gateway port: top-up charges the organisation's saved card through this interface
// only. The built-in test processor (src/payments/test-processor.ts) implements it for the
// simulator, and src/payments/no-gateway.ts when no processor is configured; a real processor
// adapter implements the same operations. Card numbers never go further than tokenise(): the
// service keeps the token, brand, last four digits and expiry.

export interface CardInput {
  readonly number: string;
  readonly expMonth: number;
  readonly expYear: number; // four digits
}

export interface CardToken {
  readonly token: string;
  readonly brand: string;
  readonly last4: string;
  readonly expMonth: number;
  readonly expYear: number;
}

export interface ChargeRequest {
  readonly token: string;
  readonly amount: number; // minor units
  readonly currency: string;
  /** Unique per top-up; the processor's idempotency reference and the key of lookup(). */
  readonly reference: string;
}

export type DeclineCode = 'card_declined' | 'insufficient_funds' | 'expired_card';

export type ChargeOutcome =
  | { readonly status: 'succeeded'; readonly processorRef: string }
  | { readonly status: 'declined'; readonly code: DeclineCode; readonly reason: string };

export type ChargeLookup =
  ChargeOutcome | { readonly status: 'processing' } | { readonly status: 'not_found' };

/**
 * The processor could not be reached, so the request was not delivered and nothing was charged.
 * (A request that was sent but not answered is a different case: its outcome is unknown.)
 */
export class GatewayUnavailableError extends Error {
  constructor(message = 'the payment processor is unavailable') {
    super(message);
    this.name = 'GatewayUnavailableError';
  }
}

export interface PaymentGateway {
  readonly name: string;
  /** Checks a card and returns a reusable token; a card that is not acceptable is a 400. */
  tokenise(card: CardInput): Promise<CardToken>;
  /** Charges a token. Throws GatewayUnavailableError when the request could not be delivered. */
  charge(request: ChargeRequest): Promise<ChargeOutcome>;
  /** What became of a charge sent earlier (by its reference). */
  lookup(reference: string): Promise<ChargeLookup>;
}
