import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { callbackUrlCheck } from './callbacks/address-guard.js';
import type { Resolver } from './callbacks/address-guard.js';
import { createOutboxSink } from './domain/callbacks/outbox.js';
import type { Clock } from './clock.js';
import type { WallClock } from './clock.js';
import { iso, systemClock, systemWallClock } from './clock.js';
import type { Config } from './config.js';
import { ConfigError, listenError } from './config.js';
import type { AppDeps } from './deps.js';
import { encodeMissingBundleJson, seedBuiltInCatalogue } from './domain/catalogue/seed.js';
import { announceDemo } from './demo.js';
import { loadFixture } from './domain/simulator/fixture-load.js';
import type { Fixture } from './domain/simulator/fixture-file.js';
import { FixtureError, readFixtureFile } from './domain/simulator/fixture-file.js';
import { recordServerAddress } from './server-address.js';
import { consoleLog } from './http/console-log.js';
import { networkServices, restoreSimulatorClock } from './network/simulator.js';
import { seededIdentifiers } from './domain/simulator/seeded-identifiers.js';
import { noGateway } from './payments/no-gateway.js';
import { createTestProcessor } from './payments/test-processor.js';
import { cryptoRandom } from './random.js';
import { createPasswordGate } from './domain/access/password-gate.js';
import { createMetrics } from './metrics/metrics.js';
import { startMetricsServer } from './http/metrics-server.js';
import { startGate } from './http/starting.js';
import { queryTimingPlugin } from './store/query-timing.js';
import { withPlugins } from './store/store-plugins.js';
import { insertSignal } from './store/insert-signal.js';
import { writeCounter } from './store/write-watch.js';
import { createKeyCipher } from './security/api-keys.js';
import type { KeyCipher } from './security/api-keys.js';
import { createApiKeyCache } from './security/key-cache.js';
import { resolveMasterKey } from './security/master-key.js';
import { migrate, openStore } from './store/database.js';
import { recordServiceMode, refuseProductionDatabase } from './store/service-mode.js';
import { bundledFirstStartImage, copyFirstStartImage } from './store/first-start-image.js';
import type { Store } from './store/database.js';
import { DatabaseInUseError, takeServerLock } from './store/server-lock.js';
import type { ServerLock } from './store/server-lock.js';
import { createWorkers } from './workers/index.js';
import { createRequestJournal } from './domain/simulator/request-journal.js';
import { createMailer } from './mail/index.js';

// Wires the real dependencies together. The CLI's `serve` calls startServer; tests use the
// harness in test/ instead, which builds the same deps around a fresh database.

export interface Services {
  readonly deps: AppDeps;
  /**
   * The database began as this build's prepared first database: its catalogue and the JSON
   * stored with it are this build's, nothing to load or encode.
   */
  readonly catalogueCopied: boolean;
  close(): Promise<void>;
}

export async function openServices(
  config: Config,
  options: {
    store?: Store;
    clock?: Clock;
    wallClock?: WallClock;
    resolver?: Resolver;
    /** Leave the built-in catalogue to the caller (startServer loads it once listening). */
    deferSeed?: boolean;
    /**
     * SQLite: checkpoints on a worker thread (the server). A command's connection is short-lived
     * and checkpoints in its commits, as SQLite does by default.
     */
    checkpointThread?: boolean;
    /**
     * SQLite: the prepared database a new file starts as (src/store/first-start-image.ts);
     * by default the one beside the bundle, none when running from the sources.
     */
    firstStartImage?: string;
  } = {},
): Promise<Services> {
  const image = options.firstStartImage ?? bundledFirstStartImage();
  const catalogueCopied =
    options.store === undefined &&
    image !== undefined &&
    config.catalogueSeed &&
    config.database.kind === 'sqlite' &&
    config.database.path !== ':memory:' &&
    copyFirstStartImage(image, config.database.path);
  const opened =
    options.store ??
    openStore(config.database, {
      busyWaitMs: config.sqliteBusyWaitMs,
      synchronous: config.sqliteSynchronous,
      connectTimeoutMs: config.databaseConnectTimeoutMs,
      statementTimeoutMs: config.databaseStatementTimeoutMs,
      checkpointIntervalMs:
        options.checkpointThread === true ? config.sqliteCheckpointIntervalMs : 0,
      groupCommit: config.groupCommit,
      groupCommitMaxBatch: config.groupCommitMaxBatch,
      groupCommitLanes: config.groupCommitLanes,
    });
  // The simulator's master key (a file it makes when there is none) is resolved only once the
  // database is known not to be a production service's (service-mode.ts).
  let cipher: KeyCipher;
  try {
    await refuseProductionDatabase(opened.db, config.mode);
    await migrate(opened);
    await recordServiceMode(opened.db, config.mode);
    cipher = createKeyCipher(resolveMasterKey(config));
  } catch (error) {
    if (options.store === undefined) await opened.close();
    throw error;
  }
  const clock =
    options.clock ??
    (config.mode === 'simulator' ? await restoreSimulatorClock(opened.db) : systemClock);
  const wallClock = options.wallClock ?? systemWallClock;
  const metrics = createMetrics({ store: opened, clock, wallClock });
  // One handle that counts writes (the eSIM answers held in memory), signals new callback events
  // (the delivery worker) and times statements, and one group writer on it, which reports its
  // batches.
  const counter = writeCounter();
  const writes = counter.writes;
  const callbacksQueued = insertSignal('callback_events');
  const store = withPlugins(
    opened,
    [
      counter.plugin,
      callbacksQueued.plugin,
      queryTimingPlugin((seconds) => metrics.observeQuery(seconds)),
    ],
    metrics.groupCommit,
  );
  if (options.deferSeed !== true && !catalogueCopied) {
    if (config.catalogueSeed) await seedBuiltInCatalogue(store.db, iso(clock.now()));
    await encodeMissingBundleJson(store.db);
  }
  const random = config.seedIdentifiers
    ? await seededIdentifiers(store.db, config.simSeed)
    : cryptoRandom;
  // Loaded only when on (the default in production): a simulator's start does not load it.
  const rateLimits = config.rateLimitEnabled
    ? await (
        await import('./rate-limits/limiter.js')
      ).createRateLimits(config, {
        observer: metrics.redis,
        now: () => wallClock.now().getTime(),
      })
    : undefined;
  const deps: AppDeps = {
    rateLimits,
    metrics,
    config,
    store,
    writes,
    callbackQueued: callbacksQueued.signal,
    clock,
    wallClock,
    random,
    cipher,
    apiKeys: createApiKeyCache({ db: store.db, clock, stalenessMs: config.apiKeyCacheMs }),
    networkEvents: createOutboxSink({
      random: cryptoRandom,
      maxPending: config.callbackMaxPending,
    }),
    mailer: createMailer(config, store, clock),
    passwordGate: createPasswordGate(config.portal.passwordChecks, config.portal.passwordQueue),
    checkCallbackUrl: callbackUrlCheck(config, options.resolver),
    ...(options.resolver === undefined ? {} : { resolver: options.resolver }),
    ...networkServices(config, store, clock, () => deps.networkEvents),
    ...(config.mode === 'simulator' ? { journal: createRequestJournal({ store, clock }) } : {}),
    payments:
      config.paymentGateway === 'test'
        ? createTestProcessor({
            db: store.db,
            clock,
            processorClock: wallClock,
            random: cryptoRandom,
            latencyMs: config.paymentLatencyMs,
          })
        : noGateway,
  };
  return {
    deps,
    catalogueCopied,
    async close() {
      await rateLimits?.close();
      await deps.mailer.close?.();
      await deps.journal?.flush();
      await store.close();
    },
  };
}

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly url: string;
  /**
   * Settles once the start's lines are printed: on a first start of a simulator, after the demo
   * organisation is made, which happens once the instance is ready.
   */
  readonly announced: Promise<void>;
  close(): Promise<void>;
}

export async function startServer(
  config: Config,
  print: (line: string) => void = (line) => process.stdout.write(line + '\n'),
): Promise<RunningServer> {
  // loadConfig refuses SEED_FILE in production; a config built in code is held to the same.
  if (config.mode === 'production' && config.seedFile !== undefined) {
    throw new ConfigError('SEED_FILE', 'is a simulator tool, refused in production mode; unset it');
  }
  // A fixture file is checked before anything starts: a mistake stops the process at once.
  const fixture = config.seedFile === undefined ? undefined : readSeedFile(config.seedFile);
  // Before anything touches the database: a second server on one SQLite file is refused here.
  const lock = lockDatabase(config);
  let services: Services;
  try {
    services = await openServices(config, { deferSeed: true, checkpointThread: true });
  } catch (error) {
    lock?.release();
    throw error;
  }
  const { deps } = services;
  // Listening comes first, so the liveness probe answers during a first start; the readiness
  // probe and every other request wait for the gate (src/http/starting.ts).
  const gate = startGate();
  let app: FastifyInstance | undefined;
  let address: string;
  try {
    const stdout = {
      isTTY: process.stdout.isTTY,
      write: (l: string) => void process.stdout.write(l),
    };
    app = await buildApp(deps, {
      startGate: gate,
      logStream: consoleLog(config.logFormat, stdout),
    });
    address = await app.listen({
      port: config.port,
      host: config.host,
      // Not "listening": the service's own `listening on` line, printed once the start is
      // complete (and after the demo's key), is the one to wait for (docs/simulator.md).
      listenTextResolver: (at) => `bound to ${at}; answering 503 until the start completes`,
    });
  } catch (error) {
    await app?.close();
    await services.close();
    lock?.release();
    throw listenError(error, config);
  }
  try {
    // Computing the encoder's fingerprint alone (every country's name and region) costs more
    // than the rest of a start from a prepared database, which was encoded by this build.
    if (!services.catalogueCopied) {
      if (config.catalogueSeed) await seedBuiltInCatalogue(deps.store.db, iso(deps.clock.now()));
      await encodeMissingBundleJson(deps.store.db);
    }
  } catch (error) {
    await app.close();
    await services.close();
    lock?.release();
    throw error;
  }
  deps.metrics?.includeProcessMetrics();
  let metricsServer: { url: string; close(): Promise<void> } | undefined;
  if (config.metricsPort !== undefined && deps.metrics !== undefined) {
    try {
      metricsServer = await startMetricsServer(config, deps.metrics);
    } catch (error) {
      await app.close();
      await services.close();
      lock?.release();
      throw error;
    }
    print(`metrics on ${metricsServer.url}/metrics`);
  }
  // The address carries the real port, also when PORT=0 asked for any free one; an address of
  // every interface is printed as the loopback one, as links are (server-address.ts).
  const url = address.replace('0.0.0.0', '127.0.0.1').replace('[::]', '[::1]');

  if (fixture !== undefined) {
    try {
      await announceFixture(deps, fixture, url, print);
    } catch (error) {
      await app.close();
      await services.close();
      lock?.release();
      throw error instanceof FixtureError ? new ConfigError('SEED_FILE', error.message) : error;
    }
  }
  // A simulator with a data folder of its own records where it listens, for the CLI.
  const inMemory = config.database.kind === 'sqlite' && config.database.path === ':memory:';
  const forgetAddress =
    config.mode === 'simulator' && !inMemory
      ? recordServerAddress(config.dataDir, url.replace('localhost', '127.0.0.1'))
      : undefined;
  gate.open();
  const workers = createWorkers(deps, app.log);
  for (const worker of workers) worker.start();
  // The demo organisation of a first start is made once the instance is ready: it is not needed
  // to answer, and until its key is printed no caller can use it (docs/simulator.md, "First
  // start"). The listening line comes after it, so it still closes what a newcomer reads.
  const listening = `eSIM bundle service (${config.mode} mode, ${deps.store.dialect}) listening on ${url}`;
  const announced =
    fixture === undefined && config.mode === 'simulator' && config.demoOnFirstStart
      ? announceDemo(deps, url, print).then(
          () => print(listening),
          (error: unknown) => {
            print(listening);
            app?.log.error(
              { err: error },
              `the demo organisation was not created: ${error instanceof Error ? error.message : String(error)}`,
            );
          },
        )
      : Promise.resolve(print(listening));

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      forgetAddress?.();
      await app.close();
      await announced;
      await metricsServer?.close();
      await Promise.all(workers.map((w) => w.stop()));
      await services.close();
      lock?.release();
    })();
    return closing;
  };
  return { app, url, announced, close };
}

function readSeedFile(path: string): Fixture {
  try {
    return readFixtureFile(path);
  } catch (error) {
    throw error instanceof FixtureError ? new ConfigError('SEED_FILE', error.message) : error;
  }
}

async function announceFixture(
  deps: AppDeps,
  fixture: Fixture,
  url: string,
  print: (line: string) => void,
): Promise<void> {
  const loaded = await loadFixture(deps, fixture);
  if (loaded === undefined) {
    print(
      'SEED_FILE not loaded: the database already has organisations ("esim sim reset --to-seed" reloads it).',
    );
    return;
  }
  for (const org of loaded) {
    print(
      `Fixture organisation: ${org.name} (${org.id}), API key ${org.apiKey}, ${org.iccids.length} eSIM${org.iccids.length === 1 ? '' : 's'}`,
    );
  }
  print(`Docs: ${url}/docs   Portal: ${url}/portal`);
}

function lockDatabase(config: Config): ServerLock | undefined {
  try {
    return takeServerLock(config.database);
  } catch (error) {
    if (!(error instanceof DatabaseInUseError)) throw error;
    throw new ConfigError(
      'DATABASE_URL',
      `${error.message}: a SQLite database serves one instance; to run several, use PostgreSQL (DATABASE_URL=postgres://…)`,
    );
  }
}
