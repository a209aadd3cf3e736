import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

// Cross-origin use of the API from browsers (CORS_ORIGINS, docs/configuration.md). The
// documentation page itself is same-origin: its OpenAPI server is relative unless
// PUBLIC_BASE_URL says otherwise. Preflight requests (OPTIONS) are answered before
// authentication, because a browser never sends the API key on a preflight: 204 with CORS
// headers for an allowed origin, a plain 204 otherwise, never a 404 or a 403.

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
const PREFLIGHT_MAX_AGE_SECONDS = 600;

export async function installCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length > 0) {
    await app.register(cors, {
      origin: origins.includes('*') ? '*' : [...origins],
      methods: METHODS,
      allowedHeaders: ALLOWED_HEADERS,
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: PREFLIGHT_MAX_AGE_SECONDS,
      // A bare OPTIONS (no Origin) is answered below instead of being refused.
      strictPreflight: false,
    });
  } else {
    app.options('*', { schema: { hide: true } }, async (_request, reply) => reply.code(204).send());
  }
  // Whatever the CORS plugin did not answer (CORS off, an origin not allowed, no preflight
  // headers) is answered here, before the API key check of /v2.1 can refuse it.
  // The callback form: every request passes here, and only a preflight needs more than a check.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.method !== 'OPTIONS' || reply.sent) {
      done();
      return;
    }
    reply.code(204).header('allow', METHODS.join(', ')).send();
  });
}
