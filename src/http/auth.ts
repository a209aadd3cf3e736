import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyCache } from '../security/key-cache.js';
import type { Organisation } from '../domain/organisations/organisation.js';
import { addressAllowed } from '../domain/access/ip-allow-list.js';
import type { AllowListRefused } from './allow-list-refusals.js';
import { sendError } from './error-handler.js';
import { isKeyLikeName, keyLikeQueryParameter } from './query-key.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's organisation, set by the API-key hook on every authenticated route. */
    organisation: Organisation;
    /**
     * Set when the caller authenticated with a rotated-out key still in its grace period: the
     * key it presented, and when that key stops working. Such a key never reads the current one.
     */
    graceKey: { readonly key: string; readonly validUntil: string } | undefined;
  }
}

const READ_METHODS = new Set(['GET', 'HEAD']);
const INVALID_KEY = { code: 'forbidden', message: 'invalid API key' } as const;

export function presentedKey(request: FastifyRequest): { key?: string; problem?: string } {
  const header = request.headers['x-api-key'];
  const query = (request.query as Record<string, unknown> | undefined)?.['api_key'];
  // Any spelling (API_KEY, api_key[], api%5Fkey ...) is refused, even beside a valid header.
  if (!READ_METHODS.has(request.method) && keyLikeQueryParameter(request.url) !== undefined) {
    return {
      problem:
        'an API key in the query (api_key, in any spelling) is accepted on GET and HEAD only; send the X-API-Key header',
    };
  }
  if (typeof header === 'string' && header !== '') return { key: header };
  if (Array.isArray(header)) return { problem: 'send exactly one X-API-Key header' };
  if (typeof query === 'string' && query !== '') return { key: query };
  return { problem: 'missing API key: send the X-API-Key header (or api_key on GET)' };
}

/**
 * Authenticates every request in the scope it is added to. A key seen recently is found in
 * memory; any other is looked up by its SHA-256 hash and the stored hash compared in constant
 * time (src/security/key-cache.ts). A good key used from outside its organisation's IP
 * allow-list is answered as a bad one, and `refused` tells its owner why.
 */
export function requireApiKey(
  app: FastifyInstance,
  keys: ApiKeyCache,
  refused?: AllowListRefused,
): void {
  app.decorateRequest('organisation', null as unknown as Organisation);
  app.decorateRequest('graceKey', undefined);
  // The callback form, so a key held in memory costs no promise: only a miss waits for a lookup.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    const { key, problem } = presentedKey(request);
    if (key === undefined) {
      sendError(reply, { code: 'forbidden', message: problem });
      return;
    }
    const known = keys.known(key);
    if (known !== undefined) {
      if (!addressAllowed(known.organisation.ipAllowList, request.ip)) {
        refused?.(request, reply, known.organisation);
        sendError(reply, INVALID_KEY);
        return;
      }
      request.organisation = known.organisation;
      if (known.validUntil !== undefined) request.graceKey = { key, validUntil: known.validUntil };
      done();
      return;
    }
    keys.lookup(key).then((holder) => {
      // A caller outside the organisation's IP allow-list gets exactly the answer of a bad key,
      // so the list tells nobody that the key is good (request.ip follows TRUST_PROXY).
      if (holder === undefined) {
        sendError(reply, INVALID_KEY);
        return;
      }
      if (!addressAllowed(holder.organisation.ipAllowList, request.ip)) {
        refused?.(request, reply, holder.organisation);
        sendError(reply, INVALID_KEY);
        return;
      }
      request.organisation = holder.organisation;
      if (holder.validUntil !== undefined)
        request.graceKey = { key, validUntil: holder.validUntil };
      done();
    }, done);
  });
}

/**
 * The URL with the value of every key-like parameter replaced, for log lines. Names are judged
 * decoded and case-insensitively (api%5Fkey, API_KEY, api_key[]: see query-key.ts), because the
 * query parser decodes them too and a key must never reach a log in any spelling.
 */
export function redactUrl(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return url;
  const parts = url
    .slice(start + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const name = eq === -1 ? part : part.slice(0, eq);
      // `token`: the portal's one-time set-password links.
      return isKeyLikeName(name) || name === 'token' ? `${name}=[REDACTED]` : part;
    });
  return `${url.slice(0, start + 1)}${parts.join('&')}`;
}
