import type { FastifyRequest } from 'fastify';
import { bodyFieldName } from './fields-from-query.js';

// The message of a request that breaks its route's schema (a 400 validation_failed): the first
// problem, named by where it is (`query parameter perPage must be <= 5000`, `body field
// order[0].quantity must be integer`), in words a caller can act on where the validator's own
// would only quote the schema.

export interface ValidationIssue {
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

/** What the schemas' patterns ask for, in words, where the pattern itself would be quoted. */
const PATTERN_WORDS: Readonly<Record<string, string>> = {
  '^[1-9][0-9]{0,8}$': 'must be a whole number from 1 to 999999999',
  '^[1-9][0-9]{0,17}$': 'must be a whole number from 1',
  '^(0|[1-9][0-9]{0,17})$': 'must be a whole number from 0',
  '^[\\x21-\\x7e]+$': 'must be printable ASCII characters, without spaces',
  '^[0-9]{3}$': 'must be 3 digits',
  '^[0-9]{2,3}$': 'must be 2 or 3 digits',
  '^(\\*|[A-Za-z]+)$': 'must be * or letters',
};

export function describeValidation(
  issues: readonly ValidationIssue[],
  context: string | undefined,
  request: FastifyRequest,
): string {
  const first = issues[0];
  const where =
    context === 'body' ? bodyFieldName(request) : (CONTEXT_NAMES[context ?? ''] ?? 'field');
  if (first === undefined) return 'request is invalid';
  const repeated = repeatedParameter(first, context, request.query);
  if (repeated !== undefined) return repeated;
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
  const pattern = first.params?.['pattern'];
  const words = typeof pattern === 'string' ? PATTERN_WORDS[pattern] : undefined;
  if (first.keyword === 'pattern' && words !== undefined) return `${where} ${path} ${words}`;
  if (path === '' && context === 'body') {
    if (request.body === undefined) return missingBody(request);
    return `request body ${first.message ?? 'is invalid'}`;
  }
  return `${where} ${path} ${first.message ?? 'is invalid'}`;
}

/** No body where the route needs one: what to send, with the fields it requires. */
function missingBody(request: FastifyRequest): string {
  const required = (request.routeOptions.schema?.body as { required?: unknown } | undefined)
    ?.required;
  const fields =
    Array.isArray(required) && required.length > 0 ? ` with ${required.join(', ')}` : '';
  return `request body is missing; send a JSON object${fields}`;
}

/**
 * A query parameter given more than once where its schema takes one value. The query string
 * parser makes a repeated name an array, which the schema's type then refuses ("must be
 * string"): true, but it does not tell the caller what to change. A parameter whose schema is an
 * array (GET /orders' createdAt) passes validation and never gets here.
 */
function repeatedParameter(
  issue: ValidationIssue,
  context: string | undefined,
  query: unknown,
): string | undefined {
  if (context !== 'querystring' || issue.keyword !== 'type') return undefined;
  const name = /^\/([^/]+)$/.exec(issue.instancePath ?? '')?.[1];
  if (name === undefined || typeof query !== 'object' || query === null) return undefined;
  const value: unknown = (query as Record<string, unknown>)[name];
  if (!Array.isArray(value)) return undefined;
  return `query parameter ${name} may be given once (it was given ${value.length} times)`;
}
