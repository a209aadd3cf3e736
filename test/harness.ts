import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../src/app.js';
import type { Resolver } from '../src/callbacks/address-guard.js';
import type { WallClock } from '../src/clock.js';
import { OffsetClock } from '../src/clock.js';
import type { Config, DatabaseTarget } from '../src/config.js';
import { testConfig } from '../src/config.js';
import type { AppDeps } from '../src/deps.js';
import type { NewOrganisationInput } from '../src/domain/organisations/organisation-changes.js';
import { openAccount } from '../src/domain/money/ledger.js';
import { createOrganisation } from '../src/domain/organisations/organisation-changes.js';
import { openServices } from '../src/main.js';
import type { ConnectRetry } from '../src/store/connection-retry.js';
import { openStore } from '../src/store/database.js';
import type { StorePlugin } from '../src/store/store-plugins.js';
import { withPlugins } from '../src/store/store-plugins.js';
import type { DatabaseKind, TestDatabase } from './databases.js';
import { freshDatabase } from './databases.js';

export { DATABASES } from './databases.js';
export type { DatabaseKind } from './databases.js';

export interface TestOrg {
  id: string;
  apiKey: string;
}

export interface TestApp {
  readonly kind: DatabaseKind;
  readonly app: FastifyInstance;
  readonly deps: AppDeps;
  readonly clock: OffsetClock;
  readonly config: Config;
  /** Creates an organisation directly in the store (fixture setup; assertions go through HTTP). */
  createOrg(
    input?: Partial<NewOrganisationInput> & { balance?: number; testCredit?: number },
  ): Promise<TestOrg>;
  /** app.inject with the given API key in X-API-Key. */
  request(apiKey: string | undefined, options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

let counter = 0;

/** PostgreSQL: the connections of a test app's pool. */
export const TEST_POOL_SIZE = 10;

/**
 * A new database of the given kind, migrated and seeded (a copy of the process's template), and
 * the app built on it, in-process.
 */
export async function startTestApp(
  kind: DatabaseKind,
  overrides: Partial<Config> = {},
  services: {
    resolver?: Resolver;
    wallClock?: WallClock;
    /** Plugins that see every statement the app runs (a test's query log). */
    storePlugins?: readonly StorePlugin[];
    /** What the app connects to, given the new database (a role of the test's own). */
    connectTo?: (target: DatabaseTarget) => Promise<DatabaseTarget>;
    /** PostgreSQL: how a connection the server refused is asked for again. */
    connectRetry?: ConnectRetry;
  } = {},
): Promise<TestApp> {
  const seeded = overrides.catalogueSeed ?? testConfig().catalogueSeed;
  const database: TestDatabase = await freshDatabase(kind, seeded ? 'seeded' : 'migrated');
  const { storePlugins, connectTo, connectRetry, ...others } = services;
  const target = connectTo === undefined ? database.target : await connectTo(database.target);
  const config = testConfig({ database: target, ...overrides });
  const clock = new OffsetClock();
  const plain = openStore(config.database, {
    poolSize: TEST_POOL_SIZE,
    ...(connectRetry === undefined ? {} : { connectRetry }),
    ...(database.image === undefined ? {} : { image: database.image }),
    busyWaitMs: config.sqliteBusyWaitMs,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    groupCommit: config.groupCommit,
    groupCommitMaxBatch: config.groupCommitMaxBatch,
    groupCommitLanes: config.groupCommitLanes,
  });
  const store = storePlugins === undefined ? plain : withPlugins(plain, storePlugins);
  const opened = await openServices(config, { store, clock, ...others });
  const deps = opened.deps;
  const app = await buildApp(deps, { logLevel: 'silent' });
  await app.ready();
  return {
    kind,
    app,
    deps,
    clock,
    config,
    async createOrg(input = {}) {
      counter += 1;
      const { balance, testCredit, ...rest } = input;
      const created = await createOrganisation(
        { db: deps.store.db, clock: deps.clock, random: deps.random, cipher: deps.cipher },
        { name: `Test Org ${counter}`, ...rest },
        (trx, org) =>
          openAccount(trx, { organisationId: org.id, balance, testCredit, at: deps.clock.now() }),
      );
      return { id: created.id, apiKey: created.apiKey };
    },
    request(apiKey, options) {
      const headers = { ...(options.headers ?? {}) } as Record<string, string>;
      if (apiKey !== undefined) headers['x-api-key'] = apiKey;
      return app.inject({ ...options, headers });
    },
    async close() {
      await app.close();
      await opened.close();
      await database.drop();
    },
  };
}

/**
 * The test app's database opened again, as the server's next start opens it (running the
 * migrations it lacks): `run` gets the new app and its dependencies, closed after it.
 */
export async function restartedApp<T>(
  t: TestApp,
  run: (app: FastifyInstance, deps: AppDeps) => Promise<T>,
): Promise<T> {
  const services = await openServices(t.config, { clock: t.clock });
  const app = await buildApp(services.deps, { logLevel: 'silent' });
  try {
    return await run(app, services.deps);
  } finally {
    await app.close();
    await services.close();
  }
}

/** Polls fn until it returns a value that is not undefined, or fails after the deadline. */
export async function eventually<T>(
  fn: () => Promise<T | undefined>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await fn();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${last === undefined ? '' : `: ${String(last)}`}`,
  );
}
