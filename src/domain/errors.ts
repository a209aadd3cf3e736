// Typed, coded errors raised by domain and store code. src/http/error-handler.ts is the one place
// that turns them into HTTP responses; the CLI prints their message.

export type ErrorCode =
  | 'bad_request'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'rate_limited'
  | 'unavailable';

const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  unavailable: 503,
};

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Seconds a client should wait, sent as Retry-After (429 and 503). */
    readonly retryAfterSeconds?: number,
    /** A finer machine-readable reason, sent as `code` in the body when set. */
    readonly reason?: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  get status(): number {
    return STATUS[this.code];
  }
}

export const badRequest = (message: string, reason?: string): DomainError =>
  new DomainError('bad_request', message, undefined, reason);
export const notFound = (message: string): DomainError => new DomainError('not_found', message);
export const conflict = (message: string, reason?: string): DomainError =>
  new DomainError('conflict', message, undefined, reason);
export const unavailable = (message: string, retryAfterSeconds: number): DomainError =>
  new DomainError('unavailable', message, retryAfterSeconds);
