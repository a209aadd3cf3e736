import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppDeps } from './deps.js';
import { AccessLog } from './http/access-log.js';
import { redactUrl } from './http/auth.js';
import { installBodyLeniency } from './http/body-input.js';
import { installBodyParsing } from './http/body-parsing.js';
import { corsHeaders, installPreflight } from './http/cors.js';
import { installDraining } from './http/draining.js';
import { installStartGate } from './http/starting.js';
import type { StartGate } from './http/starting.js';
import { clientErrors, frameworkErrors, installErrorHandling } from './http/error-handler.js';
import { installInputGuard } from './http/input-guard.js';
import { requestLoggerFactory } from './http/request-logger.js';
import { installRequestMetrics, metricsOnMainPort, registerMetricsRoute } from './http/metrics.js';
import {
  OPENAPI_PATH,
  registerDocsPage,
  registerOpenApi,
  versionDocument,
} from './http/openapi.js';
import { homeRoute } from './http/routes/home.js';
import { healthRoutes } from './http/routes/health.js';
import { simRoutes } from './http/routes/sim/index.js';
import { installRequestJournal } from './http/request-journal.js';
import { LATER_VERSIONS, VERSIONS } from './http/versions/index.js';
import { mountVersion } from './http/versions/mount.js';
import { connectionLog } from './store/connection-retry.js';
import { registerPortal } from './portal/plugin.js';
import { Country, ErrorBody } from './http/schemas/common.js';
import { PRECOMPILED_SCHEMAS } from './http/precompiled-schemas.js';
import { parseQueryString } from './http/query-string.js';
import { schemaCompilers } from './http/schema-compilers.js';
import type { SchemaCompilers } from './http/schema-compilers.js';
import type { Api } from './http/api.js';

export interface BuildAppOptions {
  /** Log to stdout at this level; 'silent' in tests. */
  logLevel?: string;
  /** Where log lines go instead of stdout (tests capture them here). */
  logStream?: { write(line: string): void };
  /** How route schemas are compiled (default: the build's generated code, else compiled now). */
  schemas?: SchemaCompilers;
  /** Until it opens, only GET /healthz is answered (a first start, src/main.ts). */
  startGate?: StartGate;
}

/** TRUST_PROXY as Fastify takes it: a number of hops becomes "trust the nearest n". */
function trustProxyOption(
  value: boolean | number | string,
): boolean | string | ((address: string, hop: number) => boolean) {
  return typeof value === 'number' ? (_address, hop) => hop < value : value;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const isoTime = (): string => `,"time":"${new Date().toISOString()}"`;

/** Builds the HTTP app from its dependencies. It never listens by itself. */
export async function buildApp(
  deps: AppDeps,
  options: BuildAppOptions = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: options.logLevel ?? deps.config.logLevel,
      ...(options.logStream === undefined ? {} : { stream: options.logStream }),
      // An RFC 3339 time a person can read, where pino writes epoch milliseconds.
      timestamp: isoTime,
      serializers: {
        // Only what an access log needs: never headers (X-API-Key) and never the api_key value.
        req: (req: FastifyRequest) => ({
          method: req.method,
          url: redactUrl(req.url),
          remoteAddress: req.ip,
        }),
      },
    },
    // Each request's child logger is made on its first enabled call (request-logger.ts).
    childLoggerFactory: requestLoggerFactory,
    bodyLimit: deps.config.bodyLimitBytes,
    // The client address of rate limits and the audit log, behind a load balancer too.
    trustProxy: trustProxyOption(deps.config.trustProxy),
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    // Validators and serialisers: generated at build time where they can be (schema-compilers.ts).
    // Fastify types the factories as returning schema-only compilers; they get the route.
    schemaController: {
      compilersFactory: (options.schemas ?? schemaCompilers({ precompiled: PRECOMPILED_SCHEMAS }))
        .factory as never,
    },
    // installDraining answers during shutdown instead, with {message} and Retry-After.
    return503OnClosing: false,
    // One line per request, written when it is answered (access-log.ts).
    logController: new AccessLog(),
    frameworkErrors,
    clientErrorHandler: clientErrors,
    // The router's parser, marking a query string whose percent-encoding is broken (400).
    routerOptions: { querystringParser: parseQueryString },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Hooks that run on every request and are synchronous take Fastify's callback form: an async
  // hook costs a promise and a turn of the microtask queue per request.
  // The first: the request id, and the CORS headers (http/cors.ts) in the same pass.
  const cors = corsHeaders(deps.config.corsOrigins);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (cors !== undefined) cors(request, reply);
    done();
  });

  // PostgreSQL: a burst of refused connections, logged once (store/connection-retry.ts).
  const unwatch = deps.store.watchConnections?.(connectionLog(app.log));
  if (unwatch !== undefined) app.addHook('onClose', async () => unwatch());

  installDraining(app);
  if (options.startGate !== undefined) installStartGate(app, options.startGate);
  if (deps.metrics !== undefined) {
    installRequestMetrics(app, deps.metrics);
    const exposed = metricsOnMainPort(deps.config);
    if (exposed !== undefined) registerMetricsRoute(app, deps.metrics, exposed.token);
  }
  if (deps.journal !== undefined) installRequestJournal(app, deps.journal);
  installErrorHandling(app);
  installBodyParsing(app);
  installBodyLeniency(app);
  installInputGuard(app);
  app.addSchema(ErrorBody);
  app.addSchema(Country);
  await registerOpenApi(app, deps.config.publicBaseUrl, LATER_VERSIONS);

  healthRoutes(app as Api, deps);
  homeRoute(app, deps);
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
  for (const version of LATER_VERSIONS) {
    app.get(`${version.prefix}/openapi.json`, { schema: { hide: true } }, async () =>
      versionDocument(app, version),
    );
  }
  await registerDocsPage(app, VERSIONS);

  // Every version from the same route definitions, each through its wire differences.
  for (const version of VERSIONS) await mountVersion(app, deps, version);
  if (deps.config.mode === 'simulator') {
    await app.register(async (sim) => simRoutes(sim as Api, deps), { prefix: '/_sim' });
  }
  await registerPortal(app, deps);
  await installPreflight(app, deps.config.corsOrigins);
  return app;
}
