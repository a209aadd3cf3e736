import type { FastifyInstance } from 'fastify';
import { sendError } from './error-handler.js';

/**
 * Opened once the instance can serve. A first start answers the liveness probe while it still
 * loads the built-in catalogue and the demo organisation; everything else waits for `open()`.
 */
export interface StartGate {
  open(): void;
  isOpen(): boolean;
}

export function startGate(): StartGate {
  let open = false;
  return {
    open: () => void (open = true),
    isOpen: () => open,
  };
}

/**
 * Until the gate opens, every request but GET /healthz (the readiness probe /readyz included)
 * gets 503 {message} with Retry-After: the process is alive, the service is not ready yet.
 */
export function installStartGate(app: FastifyInstance, gate: StartGate): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (gate.isOpen() || request.routeOptions.url === '/healthz') {
      done();
      return;
    }
    sendError(reply, { code: 'starting', retryAfterSeconds: 1 });
  });
}
