import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from '../domain/errors/error-codes.js';
import { MALFORMED_QUERY } from './query-string.js';
import type { ParsedQuery } from './query-string.js';

// Checks every route's validated input for two things its schema cannot express, before any
// handler sees it:
// - a number that is not finite. Ajv coerces the query string "Infinity" or "1e309" to Infinity
//   for an integer parameter and then skips minimum and maximum for it, so the schema alone lets
//   it through (to a LIMIT, say);
// - a NUL character in a string. PostgreSQL text cannot hold one and refuses the whole statement;
// - an unpaired surrogate in a string (JSON allows the escape "\uD800" alone). It is not text:
//   SQLite and PostgreSQL would each store something else in its place, so what was acknowledged
//   would differ from what is read back.
// Any of these is a 400 naming the field, in the wording of the validation errors. So is a query
// string whose percent-encoding does not decode (query-string.ts), as a whole.

const PARTS = [
  ['params', 'path parameter'],
  ['query', 'query parameter'],
  ['body', 'body field'],
] as const;

/** No lone surrogate (String.prototype.isWellFormed, ES2024, in Node 20). */
const wellFormed = (text: string): boolean =>
  (text as unknown as { isWellFormed(): boolean }).isWellFormed();

interface Problem {
  /** Where in the part, e.g. order[0].item; empty for the part itself (a scalar body). */
  readonly path: string;
  readonly issue: string;
}

function problem(value: unknown, path: string, depth = 0): Problem | undefined {
  if (typeof value === 'number') {
    return Number.isFinite(value) ? undefined : { path, issue: 'must be a finite number' };
  }
  if (typeof value === 'string') {
    if (value.includes('\u0000')) return { path, issue: 'must not contain a NUL character' };
    return wellFormed(value)
      ? undefined
      : { path, issue: 'must not contain an unpaired surrogate (a lone \\uD800-\\uDFFF)' };
  }
  // The depth bound keeps a pathologically nested body from exhausting the stack.
  if (typeof value !== 'object' || value === null || depth > 64) return undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = problem(item, `${path}[${i}]`, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const found = problem(item, path === '' ? key : `${path}.${key}`, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Whether `value` has neither problem: the check every request makes, with no path built and
 * nothing allocated. Only a request that fails it is walked again by `problem` for the message.
 */
function clean(value: unknown, depth = 0): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value === 'string') return !value.includes('\u0000') && wellFormed(value);
  if (typeof value !== 'object' || value === null || depth > 64) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (!clean(item, depth + 1)) return false;
    return true;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (Object.prototype.hasOwnProperty.call(record, key) && !clean(record[key], depth + 1)) {
      return false;
    }
  }
  return true;
}

/**
 * Installs the check on every route of the app (a preHandler hook: after schema validation), in
 * the callback form, since it never waits: no promise per request.
 */
export function installInputGuard(app: FastifyInstance): void {
  app.addHook('preHandler', (request: FastifyRequest, _reply, done) => {
    if (clean(request.params) && clean(request.query) && clean(request.body)) {
      if ((request.query as ParsedQuery | undefined)?.[MALFORMED_QUERY] === true) {
        done(badRequest('the query string is not valid (bad percent-encoding)', 'bad_request'));
        return;
      }
      done();
      return;
    }
    for (const [part, where] of PARTS) {
      const found = problem(request[part], '');
      if (found !== undefined) {
        const subject = found.path === '' ? 'request body' : `${where} ${found.path}`;
        done(badRequest(`${subject} ${found.issue}`, 'validation_failed'));
        return;
      }
    }
    done();
  });
}
