import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CodeWithStatus, ErrorCode, FixedStatusCode } from '../domain/errors/error-codes.js';
import { DomainError, ERROR_CATALOGUE, statusOf } from '../domain/errors/error-codes.js';
import { commitUnknown, databaseBusy, loginRefused } from '../store/conflicts.js';
import type { HttpErrorCode } from './http-error-codes.js';
import { HTTP_ERROR_CATALOGUE } from './http-error-codes.js';
import { describeValidation } from './validation-messages.js';
import { refusalMessage } from './versions/presenter.js';

// The one place where errors become HTTP responses. Every error body is {"message", "code"},
// the code from the domain's catalogue (src/domain/errors/error-codes.ts) or, for the framework's
// own 4xx, from http-error-codes.ts; 5xx bodies never carry internals.

/** The code of a framework error that has no finer one, by its status. */
const BY_STATUS: Readonly<Record<number, FixedStatusCode | HttpErrorCode>> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  412: 'precondition_failed',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  416: 'range_not_satisfiable',
  429: 'rate_limited',
};

/** An error to answer: a catalogue code, the message (the code's default when left out). */
export type ErrorReply =
  | {
      readonly code: FixedStatusCode | HttpErrorCode;
      readonly message?: string;
      readonly retryAfterSeconds?: number;
      readonly details?: Readonly<Record<string, string>>;
    }
  | {
      readonly code: CodeWithStatus<'as-configured'>;
      readonly status: number;
      readonly message?: string;
      readonly retryAfterSeconds?: number;
    };

/** The status and body of an error, the status derived from its code. */
export function renderError(error: ErrorReply): {
  status: number;
  body: { message: string; code: ErrorCode | HttpErrorCode };
} {
  if ('status' in error) {
    const message = error.message ?? ERROR_CATALOGUE[error.code].message;
    return { status: error.status, body: { message, code: error.code } };
  }
  const code = error.code;
  if (isHttpErrorCode(code)) {
    const entry = HTTP_ERROR_CATALOGUE[code];
    return { status: entry.status, body: { message: error.message ?? entry.message, code } };
  }
  const message = error.message ?? ERROR_CATALOGUE[code].message;
  const details = 'details' in error ? error.details : undefined;
  return { status: statusOf(code), body: { message, code, ...details } };
}

function isHttpErrorCode(code: string): code is HttpErrorCode {
  return Object.hasOwn(HTTP_ERROR_CATALOGUE, code);
}

/** The one renderer of error responses: {"message", "code"}, and Retry-After when given. */
export function sendError(reply: FastifyReply, error: ErrorReply): FastifyReply {
  if (error.retryAfterSeconds !== undefined) {
    reply.header('retry-after', String(error.retryAfterSeconds));
  }
  const { status, body } = renderError(error);
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

/** A framework 4xx without a finer code: the code of its status (a 400 when there is none). */
function frameworkError(status: number, message: string): ErrorReply {
  return { code: BY_STATUS[status] ?? 'bad_request', message };
}

/**
 * Errors Fastify raises before a request reaches the router (a malformed URL, for one): the same
 * {"message", "code"} body and request id as every other response. Passed as `frameworkErrors`.
 */
export function frameworkErrors(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  reply.header('x-request-id', request.id);
  // Before routing no scope's hooks ran: the portal's security headers are set here too.
  reply.headers({
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  });
  const status = error.statusCode !== undefined && error.statusCode < 500 ? error.statusCode : 400;
  const message =
    error.code === 'FST_ERR_BAD_URL'
      ? 'the request URL is not valid (bad percent-encoding)'
      : error.message;
  void sendError(reply, frameworkError(status, message));
}

/** The headers every error answer written before routing carries (the portal's included). */
const RAW_ERROR_HEADERS = [
  'Content-Type: application/json; charset=utf-8',
  'Cache-Control: no-store',
  'X-Content-Type-Options: nosniff',
  'X-Frame-Options: DENY',
  "Content-Security-Policy: default-src 'none'; frame-ancestors 'none'",
  'Connection: close',
];

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (a URL and headers over the size
 * limit, a raw byte not allowed in a URL): the {"message", "code"} body every other error has,
 * written on the socket, which then closes. Passed as `clientErrorHandler`.
 */
export function clientErrors(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const code: ErrorCode = tooLarge ? 'headers_too_large' : 'bad_request';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify({
    message: tooLarge
      ? ERROR_CATALOGUE.headers_too_large.message
      : 'the request could not be parsed (a malformed request line, URL or header)',
    code,
  });
  const reason = tooLarge ? 'Request Header Fields Too Large' : 'Bad Request';
  socket.end(
    [
      `HTTP/1.1 ${status} ${reason}`,
      ...RAW_ERROR_HEADERS,
      `Content-Length: ${Buffer.byteLength(body)}`,
      '',
      body,
    ].join('\r\n'),
  );
}

export function installErrorHandling(app: FastifyInstance): void {
  // The interface speaks JSON only: without Fastify's default text/plain parser, any other body
  // type is refused with 415 instead of reaching validation as a string.
  app.removeContentTypeParser('text/plain');
  app.setErrorHandler(
    (error: FastifyError | DomainError | Error, request: FastifyRequest, reply: FastifyReply) =>
      sendError(reply, toErrorReply(app, error, request)),
  );

  app.setNotFoundHandler((request, reply) => sendError(reply, noRoute(request)));
}

function noRoute(request: FastifyRequest): ErrorReply {
  return {
    code: 'not_found',
    message: `no route ${request.method} ${request.url.split('?')[0] ?? ''}`,
  };
}

/** What to answer for an error thrown by a route, a hook or the framework. */
function toErrorReply(
  app: FastifyInstance,
  error: FastifyError | DomainError | Error,
  request: FastifyRequest,
): ErrorReply {
  // A route that does not exist is a 404 whatever its body: the body parser (415, 413, bad
  // JSON) runs for the not-found handler too, and must not tell a caller otherwise. This also
  // keeps every /_sim path a 404 in production mode.
  if (request.is404) return noRoute(request);
  if (error instanceof DomainError) {
    return {
      code: error.code,
      message: refusalMessage(request, error),
      retryAfterSeconds: error.retryAfterSeconds,
      ...(error.details === undefined ? {} : { details: error.details }),
    };
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation !== undefined) {
    return {
      code: 'validation_failed',
      message: describeValidation(fastifyError.validation, fastifyError.validationContext, request),
    };
  }
  const status = fastifyError.statusCode ?? 500;
  if (status === 413) {
    return {
      code: 'payload_too_large',
      message: `request body is larger than the ${app.initialConfig.bodyLimit} byte limit`,
    };
  }
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return { code: 'invalid_json', message: 'request body is not valid JSON' };
  }
  if (fastifyError.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
    return { code: 'invalid_json', message: 'request body is empty; send a JSON object' };
  }
  if (status === 415) {
    const type = (String(request.headers['content-type'] ?? '').split(';')[0] ?? '').slice(0, 100);
    return {
      code: 'unsupported_media_type',
      message: `request body must be application/json${type === '' ? '' : `, not ${type}`}`,
    };
  }
  if (status >= 400 && status < 500) return frameworkError(status, error.message);
  if (commitUnknown(error)) {
    // The connection went during the COMMIT (store/lost-transactions.ts): no Retry-After, since a
    // blind retry could do the work twice; the message says how to find out.
    request.log.error({ err: error }, 'commit outcome unknown');
    return { code: 'commit_unknown' };
  }
  if (databaseBusy(error)) {
    // Nothing was written, and a retry is safe (store/conflicts.ts): another process held the
    // SQLite database for longer than SQLITE_BUSY_WAIT_MS, or on PostgreSQL a deadlock or
    // serialisation conflict outlasted its reruns, or no connection could be had in the pool's
    // tries, or every connection of this instance's pool stayed busy for the connect timeout
    // (store/connection-retry.ts).
    request.log.warn({ err: error }, 'database busy');
    return { code: 'database_busy', retryAfterSeconds: 1 };
  }
  if (loginRefused(error)) {
    // PostgreSQL refused the login (no such database, a wrong password): the operator's to mend,
    // logged as an error; the caller is told to come back, as for a busy database.
    request.log.error({ err: error }, 'database login refused');
    return { code: 'database_busy', retryAfterSeconds: 1 };
  }
  request.log.error({ err: error }, 'unhandled error');
  return { code: 'internal' };
}
