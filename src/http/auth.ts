import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hashApiKey, hashesEqual } from '../security/api-keys.js';
import type { Db } from '../store/database.js';
import { findOrganisationByKeyHash } from '../store/repositories/organisation-repository.js';
import type { OrganisationRow } from '../store/schema.js';
import { sendError } from './error-handler.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's organisation, set by the API-key hook on every authenticated route. */
    organisation: OrganisationRow;
  }
}

const READ_METHODS = new Set(['GET', 'HEAD']);

function presentedKey(request: FastifyRequest): { key?: string; problem?: string } {
  const header = request.headers['x-api-key'];
  const query = (request.query as Record<string, unknown> | undefined)?.['api_key'];
  if (query !== undefined && !READ_METHODS.has(request.method)) {
    return {
      problem:
        'the api_key query parameter is accepted on GET and HEAD only; send the X-API-Key header',
    };
  }
  if (typeof header === 'string' && header !== '') return { key: header };
  if (Array.isArray(header)) return { problem: 'send exactly one X-API-Key header' };
  if (typeof query === 'string' && query !== '') return { key: query };
  return { problem: 'missing API key: send the X-API-Key header (or api_key on GET)' };
}

/**
 * Authenticates every request in the scope it is added to. Keys are looked up by their SHA-256
 * hash and the stored hash is compared in constant time.
 */
export function requireApiKey(app: FastifyInstance, db: Db): void {
  app.decorateRequest('organisation', null as unknown as OrganisationRow);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const { key, problem } = presentedKey(request);
    if (key === undefined)
      return sendError(reply, 403, problem ?? 'forbidden', { code: 'forbidden' });
    const hash = hashApiKey(key);
    const organisation = await findOrganisationByKeyHash(db, hash);
    if (organisation === undefined || !hashesEqual(organisation.api_key_hash, hash)) {
      return sendError(reply, 403, 'invalid API key', { code: 'forbidden' });
    }
    request.organisation = organisation;
  });
}

/** The URL with any api_key value replaced, for log lines. */
export function redactUrl(url: string): string {
  return url.replace(/([?&]api_key=)[^&#]*/gi, '$1[REDACTED]');
}
