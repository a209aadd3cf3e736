import cors from '@fastify/cors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

// Cross-origin use of the API from browsers (CORS_ORIGINS, docs/configuration.md). The
// documentation page itself is same-origin: its OpenAPI server is relative unless
// PUBLIC_BASE_URL says otherwise. Preflight requests (OPTIONS) are answered before
// authentication, because a browser never sends the API key on a preflight: 204 with CORS
// headers for an allowed origin, a plain 204 otherwise, never a 404 or a 403.
//
// Two parts. `corsHeaders` gives the CORS headers of every other request, with values computed
// once: the same headers, in the same order, that @fastify/cors adds, without the options object,
// closure and joins the plugin makes on every request. `installPreflight` answers OPTIONS with
// @fastify/cors itself, in a scope that holds only its OPTIONS route, so its hook runs for
// preflights alone; it is installed after every other app-wide hook, so that route keeps them all.

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'];
const ALLOWED_HEADERS = ['X-API-Key', 'Content-Type', 'Accept', 'Idempotency-Key', 'X-Request-Id'];
const EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-Total-Count',
  'Link',
  'Retry-After',
  'Deprecation',
  'Content-Disposition',
];
const EXPOSED = EXPOSED_HEADERS.join(', ');
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * The simulator's control plane (/_sim, no token by default, snapshots with every key) and the
 * portal (cookie sessions) are same-origin only: whatever CORS_ORIGINS says, they never answer a
 * browser on another origin with a CORS grant, preflights included. Judged on the path decoded
 * and with repeated slashes folded, as the router reads it.
 */
const PRIVATE_PATH = /^\/+(_sim|portal)(\/|$)/i;

export function isSameOriginOnly(url: string): boolean {
  // Most requests are /v2.x/…: told apart by their second character, with no regular expression.
  const second = url.charCodeAt(1);
  if (second !== 95 && second !== 112 && second !== 80 && second !== 47 && second !== 37) {
    return false; // not _, p, P, / or %
  }
  const path = url.split('?', 1)[0] ?? '';
  if (!path.includes('%')) return PRIVATE_PATH.test(path);
  try {
    return PRIVATE_PATH.test(decodeURIComponent(path));
  } catch {
    return true; // not a path the router would route anywhere: no grant
  }
}

/** Sets the headers of a response to a request: one pass of the app's first onRequest hook. */
export type ResponseHeaders = (request: FastifyRequest, reply: FastifyReply) => void;

/**
 * The CORS headers of every request but OPTIONS, or undefined when CORS is off. app.ts sets them
 * in its first onRequest hook, with the request id: one hook for both, so every answer carries
 * them, those of the draining and start gates included. Values computed once.
 */
export function corsHeaders(origins: readonly string[]): ResponseHeaders | undefined {
  if (origins.length === 0) return undefined;
  if (origins.includes('*')) {
    return (request, reply) => {
      if (request.method !== 'OPTIONS' && !isSameOriginOnly(request.url)) {
        reply.header('access-control-allow-origin', '*');
        reply.header('access-control-expose-headers', EXPOSED);
      }
    };
  }
  // A list: the answer depends on Origin (Vary), which is echoed when it is listed.
  const listed = new Set(origins);
  return (request, reply) => {
    if (request.method !== 'OPTIONS' && !isSameOriginOnly(request.url)) {
      reply.header('vary', 'Origin');
      const origin = request.headers.origin;
      if (origin !== undefined && listed.has(origin)) {
        reply.header('access-control-allow-origin', origin);
      }
      reply.header('access-control-expose-headers', EXPOSED);
    }
  };
}

/** OPTIONS, answered before any authentication; install after every other app-wide hook. */
export async function installPreflight(
  app: FastifyInstance,
  origins: readonly string[],
): Promise<void> {
  await app.register(async (scope) => {
    // First: a preflight to a same-origin-only path is answered with no grant at all.
    scope.addHook('onRequest', (request, reply, done) => {
      if (request.method === 'OPTIONS' && isSameOriginOnly(request.url)) {
        reply.code(204).header('allow', METHODS.join(', ')).send();
        return;
      }
      done();
    });
    if (origins.length > 0) {
      await scope.register(cors, {
        origin: origins.includes('*') ? '*' : [...origins],
        methods: METHODS,
        allowedHeaders: ALLOWED_HEADERS,
        exposedHeaders: EXPOSED_HEADERS,
        maxAge: PREFLIGHT_MAX_AGE_SECONDS,
        // A bare OPTIONS (no Origin) is answered below instead of being refused.
        strictPreflight: false,
      });
    } else {
      scope.options('*', { schema: { hide: true } }, async (_request, reply) =>
        reply.code(204).send(),
      );
    }
    // Whatever the CORS plugin did not answer (CORS off, an origin not allowed, no preflight
    // headers) is answered here, before the API key check of /v2.1 can refuse it.
    scope.addHook('onRequest', (request, reply, done) => {
      if (request.method !== 'OPTIONS' || reply.sent) {
        done();
        return;
      }
      reply.code(204).header('allow', METHODS.join(', ')).send();
    });
  });
}
