import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Clock } from './clock.js';
import { OffsetClock, systemClock } from './clock.js';
import type { Config } from './config.js';
import type { AppDeps } from './deps.js';
import { createDemoOrganisation } from './domain/demo.js';
import { cryptoRandom } from './random.js';
import { createKeyCipher } from './security/api-keys.js';
import { resolveMasterKey } from './security/master-key.js';
import { migrate, openStore } from './store/database.js';
import type { Store } from './store/database.js';
import { createWorkers } from './workers.js';

// Wires the real dependencies together. The CLI's `serve` calls startServer; tests use the
// harness in test/ instead, which builds the same deps around a fresh database.

export interface Services {
  readonly deps: AppDeps;
  close(): Promise<void>;
}

export async function openServices(
  config: Config,
  options: { store?: Store; clock?: Clock } = {},
): Promise<Services> {
  const store = options.store ?? openStore(config.database);
  await migrate(store);
  const clock = options.clock ?? (config.mode === 'simulator' ? new OffsetClock() : systemClock);
  const deps: AppDeps = {
    config,
    store,
    clock,
    random: cryptoRandom,
    cipher: createKeyCipher(resolveMasterKey(config)),
    networkEvents: { record: async () => undefined },
  };
  return { deps, close: () => store.close() };
}

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly url: string;
  close(): Promise<void>;
}

export async function startServer(
  config: Config,
  print: (line: string) => void = (line) => process.stdout.write(line + '\n'),
): Promise<RunningServer> {
  const services = await openServices(config);
  const { deps } = services;
  const app = await buildApp(deps);
  const address = await app.listen({ port: config.port, host: config.host });
  const url = address.replace('0.0.0.0', 'localhost').replace('[::]', 'localhost');

  if (config.mode === 'simulator' && config.demoOnFirstStart) {
    const demo = await createDemoOrganisation(deps);
    if (demo !== undefined) {
      print('');
      print(`Demo organisation created: ${demo.name} (${demo.id})`);
      print(`API key: ${demo.apiKey}`);
      print(`Try it:  curl -H 'X-API-Key: ${demo.apiKey}' ${url}/v2.1/organisation`);
      print(`Docs:    ${url}/docs`);
      print('');
    }
  }
  print(`eSIM bundle service (${config.mode} mode, ${deps.store.dialect}) listening on ${url}`);
  const workers = createWorkers(deps, app.log);
  for (const worker of workers) worker.start();

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await app.close();
      await Promise.all(workers.map((w) => w.stop()));
      await services.close();
    })();
    return closing;
  };
  return { app, url, close };
}
