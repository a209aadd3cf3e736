import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { listenError } from '../config.js';
import type { Metrics } from '../metrics/metrics.js';
import { registerMetricsRoute } from './metrics.js';

/**
 * /metrics on its own port (METRICS_PORT), for a scraper on the internal network: nothing else
 * is served there, and METRICS_TOKEN still applies when set.
 */
export async function startMetricsServer(
  config: Config,
  metrics: Metrics,
): Promise<{ url: string; close(): Promise<void> }> {
  const app: FastifyInstance = Fastify({ logger: false });
  registerMetricsRoute(app, metrics, config.metricsToken);
  try {
    const url = await app.listen({ port: config.metricsPort ?? 0, host: config.metricsHost });
    return { url, close: () => app.close() };
  } catch (error) {
    await app.close();
    const mapped = listenError(error, { port: config.metricsPort ?? 0, host: config.metricsHost });
    throw mapped;
  }
}
