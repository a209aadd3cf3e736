// The process under test for bench/catalogue.ts: the real service (simulator mode, a fresh
// SQLite file, the built-in catalogue) and, beside it, a bare Fastify route that answers with the
// very bytes the service returns. Both listen in this one process and are measured one after the
// other, so they share the same conditions. Prints one JSON line with the addresses, then waits
// for stdin to close.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.js';
import { BUILT_IN_GROUPS } from '../src/domain/catalogue/naming.js';
import { createOrganisation } from '../src/domain/organisations/organisation-changes.js';
import { openServices, startServer } from '../src/main.js';

export const CATALOGUE_PATH = '/v2.1/catalogue?countries=FR&perPage=50';

const dir = mkdtempSync(join(tmpdir(), 'esim-bench-'));
const config = loadConfig({
  MODE: 'simulator',
  DATABASE_URL: `sqlite:${join(dir, 'bench.sqlite')}`,
  DATA_DIR: dir,
  MASTER_KEY: randomBytes(32).toString('hex'),
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
  DEMO_ON_FIRST_START: 'false',
  // Passed through so the uncached path can be measured too (docs in bench/README.md).
  CATALOGUE_CACHE_ENTRIES: process.env['CATALOGUE_CACHE_ENTRIES'],
  CATALOGUE_STALENESS_MS: process.env['CATALOGUE_STALENESS_MS'],
});
// Set up the database (migrations, built-in catalogue, one organisation) before the server starts.
const setup = await openServices(config);
// Every built-in group, so the page is a full one (50 bundles, about 20 kB).
const org = await createOrganisation(
  {
    db: setup.deps.store.db,
    clock: setup.deps.clock,
    random: setup.deps.random,
    cipher: setup.deps.cipher,
  },
  { name: 'Benchmark Org', groups: BUILT_IN_GROUPS },
);
await setup.close();
const server = await startServer(config, () => undefined);

const sample = await fetch(`${server.url}${CATALOGUE_PATH}`, {
  headers: { 'x-api-key': org.apiKey },
});
if (sample.status !== 200) throw new Error(`catalogue answered ${sample.status}`);
const body = Buffer.from(await sample.arrayBuffer());
const copied = ['content-type', 'x-total-count', 'link'].map(
  (name) => [name, sample.headers.get(name) ?? ''] as const,
);

const bare = Fastify({ logger: false });
bare.get('/v2.1/catalogue', async (_request, reply) => {
  for (const [name, value] of copied) reply.header(name, value);
  return reply.send(body);
});
const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });

process.stdout.write(
  JSON.stringify({ appUrl: server.url, bareUrl, apiKey: org.apiKey, bytes: body.length }) + '\n',
);

process.stdin.resume();
process.stdin.on('end', () => {
  void (async () => {
    await bare.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  })();
});
