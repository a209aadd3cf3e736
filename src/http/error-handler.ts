import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.js';
import { isBusyError } from '../store/sqlite-busy.js';

// The one place where errors become HTTP responses. Every error body is {"message"} (plus an
// optional stable `code`); 5xx bodies never carry internals.

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
  keyword?: string;
}

const CONTEXT_NAMES: Record<string, string> = {
  querystring: 'query parameter',
  params: 'path parameter',
  body: 'body field',
  headers: 'header',
};

function describeValidation(
  issues: readonly ValidationIssue[],
  context: string | undefined,
): string {
  const first = issues[0];
  const where = CONTEXT_NAMES[context ?? ''] ?? 'field';
  if (first === undefined) return 'request is invalid';
  const path = (first.instancePath ?? '')
    .replace(/^\//, '')
    .replace(/\/(\d+)(?=\/|$)/g, '[$1]')
    .replace(/\//g, '.');
  const missing = first.params?.['missingProperty'];
  if (first.keyword === 'required' && typeof missing === 'string') {
    const field = path === '' ? missing : `${path}.${missing}`;
    return `${where} ${field} is required`;
  }
  const extra = first.params?.['additionalProperty'];
  if (first.keyword === 'additionalProperties' && typeof extra === 'string') {
    return `${where} ${path === '' ? extra : `${path}.${extra}`} is not allowed`;
  }
  const allowed = first.params?.['allowedValues'];
  if (first.keyword === 'enum' && Array.isArray(allowed)) {
    return `${where} ${path} must be one of ${allowed.join(', ')}`;
  }
  if (path === '' && context === 'body') return `request body ${first.message ?? 'is invalid'}`;
  return `${where} ${path} ${first.message ?? 'is invalid'}`;
}

const CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  408: 'request_timeout',
  409: 'conflict',
  411: 'length_required',
  413: 'payload_too_large',
  414: 'uri_too_long',
  429: 'rate_limited',
  431: 'headers_too_large',
};

export function sendError(
  reply: FastifyReply,
  status: number,
  message: string,
  extra: { code?: string; retryAfterSeconds?: number } = {},
): FastifyReply {
  if (extra.retryAfterSeconds !== undefined)
    reply.header('retry-after', String(extra.retryAfterSeconds));
  const body: { message: string; code?: string } = { message };
  if (extra.code !== undefined) body.code = extra.code;
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

/**
 * Errors Fastify raises before a request reaches the router (a malformed URL, for one): the same
 * {message} body and request id as every other response. Passed as `frameworkErrors`.
 */
export function frameworkErrors(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  reply.header('x-request-id', request.id);
  const status = error.statusCode !== undefined && error.statusCode < 500 ? error.statusCode : 400;
  const message =
    error.code === 'FST_ERR_BAD_URL'
      ? 'the request URL is not valid (bad percent-encoding)'
      : error.message;
  void sendError(reply, status, message, { code: CODES[status] ?? 'bad_request' });
}

export function installErrorHandling(app: FastifyInstance): void {
  // The interface speaks JSON only: without Fastify's default text/plain parser, any other body
  // type is refused with 415 instead of reaching validation as a string.
  app.removeContentTypeParser('text/plain');
  app.setErrorHandler(
    (error: FastifyError | DomainError | Error, request: FastifyRequest, reply: FastifyReply) => {
      if (error instanceof DomainError) {
        return sendError(reply, error.status, error.message, {
          code: error.reason ?? error.code,
          retryAfterSeconds: error.retryAfterSeconds,
        });
      }
      const fastifyError = error as FastifyError;
      if (fastifyError.validation !== undefined) {
        return sendError(
          reply,
          400,
          describeValidation(fastifyError.validation, fastifyError.validationContext),
          {
            code: 'validation_failed',
          },
        );
      }
      const status = fastifyError.statusCode ?? 500;
      if (status === 413) {
        return sendError(
          reply,
          413,
          `request body is larger than the ${app.initialConfig.bodyLimit} byte limit`,
          {
            code: 'payload_too_large',
          },
        );
      }
      if (fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
        return sendError(reply, 400, 'request body is not valid JSON', { code: 'invalid_json' });
      }
      if (fastifyError.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
        return sendError(reply, 400, 'request body is empty; send a JSON object', {
          code: 'invalid_json',
        });
      }
      if (status === 415) {
        const type = (String(request.headers['content-type'] ?? '').split(';')[0] ?? '').slice(
          0,
          100,
        );
        return sendError(
          reply,
          415,
          `request body must be application/json${type === '' ? '' : `, not ${type}`}`,
          { code: 'unsupported_media_type' },
        );
      }
      if (status >= 400 && status < 500) {
        return sendError(reply, status, error.message, { code: CODES[status] ?? 'bad_request' });
      }
      if (isBusyError(error)) {
        // Another process (an esim command, a second writer) held the SQLite database for
        // longer than SQLITE_BUSY_WAIT_MS: nothing was written, and a retry is safe.
        request.log.warn({ err: error }, 'database busy');
        return sendError(reply, 503, 'the database is busy; retry shortly', {
          code: 'database_busy',
          retryAfterSeconds: 1,
        });
      }
      request.log.error({ err: error }, 'unhandled error');
      return sendError(reply, 500, 'internal server error', { code: 'internal' });
    },
  );

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, 404, `no route ${request.method} ${request.url.split('?')[0] ?? ''}`, {
      code: 'not_found',
    }),
  );
}
