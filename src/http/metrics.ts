import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics/metrics.js';
import { sendError } from './error-handler.js';

export const METRICS_PATH = '/metrics';

/** Where /metrics is served: on the main port (open, or behind a bearer token), or not there. */
export function metricsOnMainPort(
  config: Pick<Config, 'mode' | 'metricsPort' | 'metricsToken'>,
): { token: string | undefined } | undefined {
  if (config.metricsPort !== undefined) return undefined; // its own listener (metrics-server.ts)
  if (config.metricsToken !== undefined) return { token: config.metricsToken };
  // Production never exposes metrics unprotected on the public port.
  return config.mode === 'simulator' ? { token: undefined } : undefined;
}

/** Counts and times every response by its route template (never the raw URL: bounded labels). */
export function installRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  // The callback form: it never waits, and an async hook costs a promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header ?? '', 'utf8');
  const wanted = Buffer.from(`Bearer ${token}`, 'utf8');
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** GET /metrics: the Prometheus text exposition format. */
export function registerMetricsRoute(
  app: FastifyInstance,
  metrics: Metrics,
  token: string | undefined,
): void {
  app.get(METRICS_PATH, { schema: { hide: true } }, async (request, reply) => {
    if (token !== undefined && !tokenMatches(request.headers.authorization, token)) {
      // A 401 names the scheme it wants (RFC 9110, section 11.6.1).
      reply.header('www-authenticate', 'Bearer realm="metrics"');
      return sendError(reply, {
        code: 'unauthorized',
        message: 'metrics need Authorization: Bearer <METRICS_TOKEN>',
      });
    }
    const text = await metrics.render();
    return reply.type(metrics.contentType).header('cache-control', 'no-store').send(text);
  });
}
