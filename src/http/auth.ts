import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import { hashApiKey, hashesEqual } from '../security/api-keys.js';
import type { Db } from '../store/database.js';
import { findOrganisationByPreviousKeyHash } from '../store/repositories/api-key-repository.js';
import type { Organisation } from '../domain/organisation.js';
import type { KeyHolder } from '../store/repositories/organisation-repository.js';
import { findOrganisationByKeyHash } from '../store/repositories/organisation-repository.js';
import { sendError } from './error-handler.js';
import { isKeyLikeName, keyLikeQueryParameter } from './query-key.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's organisation, set by the API-key hook on every authenticated route. */
    organisation: Organisation;
  }
  interface FastifyContextConfig {
    /**
     * The route reads only the organisation's groups and may see them (and the key) as they were
     * up to the cache time ago: the catalogue routes, the hottest read of the API.
     */
    recentOrganisation?: boolean;
  }
}

/** Keys whose organisation is remembered at once; the oldest is forgotten first. */
const MAX_REMEMBERED_KEYS = 10_000;

interface Remembered {
  readonly holder: KeyHolder;
  readonly at: number;
}

export interface OrganisationCacheOptions {
  readonly clock: Clock;
  /** How long a looked-up organisation may serve routes that opt in; 0 disables (<= 1000). */
  readonly ttlMs: number;
}

const READ_METHODS = new Set(['GET', 'HEAD']);

function presentedKey(request: FastifyRequest): { key?: string; problem?: string } {
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
 * Authenticates every request in the scope it is added to. Keys are looked up by their SHA-256
 * hash and the stored hash is compared in constant time.
 */
export function requireApiKey(
  app: FastifyInstance,
  db: Db,
  cache: OrganisationCacheOptions = { clock: systemClock, ttlMs: 0 },
): void {
  // Every lookup refreshes this; only routes marked recentOrganisation read from it, so a key
  // rotation or group change reaches them within ttlMs and every other route at once.
  const remembered = new Map<string, Remembered>();
  // A rotated-out key authenticates its organisation until its grace period ends. It comes back
  // with the presented key's hash, so the constant-time check below holds for it too.
  const inGrace = async (hash: string, now: number): Promise<KeyHolder | undefined> =>
    findOrganisationByPreviousKeyHash(db, hash, new Date(now).toISOString());
  const find = async (hash: string, recentIsEnough: boolean): Promise<KeyHolder | undefined> => {
    const now = cache.clock.now().getTime();
    if (recentIsEnough && cache.ttlMs > 0) {
      const hit = remembered.get(hash);
      if (hit !== undefined && now >= hit.at && now - hit.at < cache.ttlMs) return hit.holder;
    }
    const holder = (await findOrganisationByKeyHash(db, hash)) ?? (await inGrace(hash, now));
    remembered.delete(hash);
    if (holder !== undefined && cache.ttlMs > 0) {
      if (remembered.size >= MAX_REMEMBERED_KEYS) {
        const oldest = remembered.keys().next();
        if (oldest.done !== true) remembered.delete(oldest.value);
      }
      remembered.set(hash, { holder, at: now });
    }
    return holder;
  };
  app.decorateRequest('organisation', null as unknown as Organisation);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const { key, problem } = presentedKey(request);
    if (key === undefined) return sendError(reply, { code: 'forbidden', message: problem });
    const hash = hashApiKey(key);
    const holder = await find(hash, request.routeOptions.config?.recentOrganisation === true);
    if (holder === undefined || !hashesEqual(holder.keyHash, hash)) {
      return sendError(reply, { code: 'forbidden', message: 'invalid API key' });
    }
    request.organisation = holder.organisation;
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
