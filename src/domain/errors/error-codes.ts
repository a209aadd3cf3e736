// The error catalogue of the domain: every code a rule, a use case or the store raises, its HTTP
// status and default message. Domain and store code raise DomainError with one of these codes;
// src/http/error-handler.ts is the one place that renders them (as {"message", "code"}); the CLI
// prints their message. Codes only the HTTP layer answers (412 to 416) are in
// src/http/http-error-codes.ts. docs/errors.md lists both, and test/http/error-catalogue.test.ts
// fails when they drift.

interface CatalogueEntry {
  /** The HTTP status; `as-configured` only for a simulated fault, which carries its own. */
  readonly status: number | 'as-configured';
  /** The message when the raiser gives none. */
  readonly message: string;
}

export const ERROR_CATALOGUE = {
  // 400: bad input
  bad_request: { status: 400, message: 'the request is not valid' },
  validation_failed: { status: 400, message: 'a field of the request is not valid' },
  invalid_json: { status: 400, message: 'request body is not valid JSON' },
  invalid_iccid: { status: 400, message: 'not an ICCID' },
  invalid_amount: { status: 400, message: 'query parameter amount is not valid' },
  quantity_limit: { status: 400, message: 'the order asks for more units than allowed' },
  unknown_bundle: { status: 400, message: 'the bundle is not available to this organisation' },
  unknown_group: { status: 400, message: 'the group is not one of this organisation' },
  unknown_iccid: { status: 400, message: 'eSIM not found' },
  insufficient_balance: { status: 400, message: 'insufficient balance' },
  insufficient_inventory: { status: 400, message: 'the inventory does not hold enough units' },
  illegal_transition: { status: 400, message: 'the assignment cannot make that transition' },
  no_unused_assignment: { status: 400, message: 'the eSIM has no unused assignment of the bundle' },
  no_msisdn: { status: 400, message: 'the eSIM has no MSISDN' },
  refunds_disabled: { status: 400, message: 'inventory refunds are turned off on this service' },
  refund_window_closed: { status: 400, message: 'the refund window of the purchase has closed' },
  refund_price_unknown: { status: 400, message: 'no purchase price is recorded for the units' },
  inventory_lapsed: { status: 400, message: 'the inventory units have lapsed' },
  refund_not_allowed: { status: 400, message: 'the assignment has started and cannot be refunded' },
  esim_deactivated: { status: 400, message: 'the eSIM is deactivated' },
  esim_suspended: { status: 400, message: 'the eSIM is suspended' },
  no_card: { status: 400, message: 'no saved card' },
  invalid_card: { status: 400, message: 'the card is not valid' },
  expired_card: { status: 400, message: 'the card has expired' },
  card_declined: { status: 400, message: 'the card was declined' },
  insufficient_funds: { status: 400, message: 'the card has insufficient funds' },
  // 401, 403: credentials
  unauthorized: { status: 401, message: 'authorization is required' },
  forbidden: { status: 403, message: 'forbidden' },
  consumption_billing_only: {
    status: 403,
    message: 'only organisations on Consumption billing can read consumption prices',
  },
  // 404: nothing there (or it belongs to another organisation)
  not_found: { status: 404, message: 'not found' },
  // 409: conflicts
  conflict: { status: 409, message: 'the request conflicts with the current state' },
  idempotency_key_reused: {
    status: 409,
    message: 'Idempotency-Key was already used with a different request',
  },
  idempotency_in_progress: {
    status: 409,
    message: 'a request with this Idempotency-Key is still being processed; retry later',
  },
  stale_assignment: { status: 409, message: 'the assignment changed concurrently; retry' },
  callback_in_progress: { status: 409, message: 'the callback is already queued for delivery' },
  // 410: gone for good
  esim_gone: { status: 410, message: 'the eSIM was deleted' },
  // 429: too many requests
  rate_limited: { status: 429, message: 'rate limit exceeded' },
  headers_too_large: {
    status: 431,
    message: 'the request line and headers are too large (the URL included)',
  },
  // 5xx
  internal: { status: 500, message: 'internal server error' },
  unavailable: { status: 503, message: 'the service is unavailable; retry later' },
  database_busy: { status: 503, message: 'the database is busy; retry shortly' },
  commit_unknown: {
    status: 503,
    message:
      'the connection to the database was lost while the change was being saved, so it may or may not have been saved; read it back, or send the request again with the same Idempotency-Key',
  },
  database_unreachable: { status: 503, message: 'database unreachable' },
  draining: { status: 503, message: 'this instance is shutting down; retry shortly' },
  starting: { status: 503, message: 'this instance is starting; retry shortly' },
  processing: {
    status: 503,
    message: 'Processing - come back later or use the Retry-After (seconds) header',
  },
  simulated_fault: { status: 'as-configured', message: 'simulated fault' },
} as const satisfies Record<string, CatalogueEntry>;

type Catalogue = typeof ERROR_CATALOGUE;

export type ErrorCode = keyof Catalogue;

/** The codes answered with `status`. */
export type CodeWithStatus<S extends number | 'as-configured'> = {
  [C in ErrorCode]: Catalogue[C]['status'] extends S ? C : never;
}[ErrorCode];

/** Every code whose status the catalogue fixes. */
export type FixedStatusCode = Exclude<ErrorCode, CodeWithStatus<'as-configured'>>;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CATALOGUE, value);
}

export function isFixedStatusCode(value: unknown): value is FixedStatusCode {
  return isErrorCode(value) && ERROR_CATALOGUE[value].status !== 'as-configured';
}

/** The HTTP status of a code the catalogue fixes. */
export function statusOf(code: FixedStatusCode): number {
  return ERROR_CATALOGUE[code].status;
}

export class DomainError extends Error {
  constructor(
    readonly code: FixedStatusCode,
    message: string = ERROR_CATALOGUE[code].message,
    /** Seconds a client should wait, sent as Retry-After (409, 429 and 503). */
    readonly retryAfterSeconds?: number,
    /** Fields the error body carries besides message and code (a reference to ask about). */
    readonly details?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  get status(): number {
    return statusOf(this.code);
  }
}

export const badRequest = (
  message: string,
  code: CodeWithStatus<400> = 'bad_request',
): DomainError => new DomainError(code, message);
export const notFound = (message: string): DomainError => new DomainError('not_found', message);
export const gone = (message: string): DomainError => new DomainError('esim_gone', message);
export const conflict = (message: string, code: CodeWithStatus<409> = 'conflict'): DomainError =>
  new DomainError(code, message);
export const unavailable = (
  message: string,
  retryAfterSeconds: number,
  code: CodeWithStatus<503> = 'unavailable',
): DomainError => new DomainError(code, message, retryAfterSeconds);
