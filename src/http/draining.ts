import type { FastifyInstance } from 'fastify';
import { sendError } from './error-handler.js';

/** Seconds a client is told to wait before retrying on another instance. */
export const DRAIN_RETRY_AFTER_SECONDS = 5;

/**
 * From the moment the app starts closing, every new request (readiness probes included) gets
 * 503 {message} with Retry-After, so a load balancer moves traffic away while requests already
 * in flight finish. Fastify's own closing response has neither the body shape nor Retry-After.
 */
export function installDraining(app: FastifyInstance): void {
  let draining = false;
  app.addHook('preClose', async () => {
    draining = true;
  });
  // The callback form: no promise per request while the instance is not draining.
  app.addHook('onRequest', (_request, reply, done) => {
    if (!draining) {
      done();
      return;
    }
    reply.header('connection', 'close');
    sendError(reply, {
      code: 'draining',
      message: 'this instance is shutting down; retry shortly',
      retryAfterSeconds: DRAIN_RETRY_AFTER_SECONDS,
    });
  });
}
