// The process under test for bench/reads.ts: the real service (simulator mode, a fresh SQLite
// file, the built-in catalogue, the catalogue's answer cache off) and, beside it, a bare Fastify
// app that answers each measured path with the very bytes and headers the service returned.
// Both listen in this one process and are measured one after the other, so they share the same
// conditions. Prints one JSON line with the addresses and paths, then waits for stdin to close.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.js';
import { BUILT_IN_GROUPS } from '../src/domain/catalogue/naming.js';
import { openAccount } from '../src/domain/money/ledger.js';
import { createOrganisation } from '../src/domain/organisations/organisation-changes.js';
import { openServices, startServer } from '../src/main.js';

export const CATALOGUE_PATH = '/v2.1/catalogue?countries=FR&perPage=50';

const dir = mkdtempSync(join(tmpdir(), 'esim-bench-reads-'));
const config = loadConfig({
  MODE: 'simulator',
  DATABASE_URL: `sqlite:${join(dir, 'bench.sqlite')}`,
  DATA_DIR: dir,
  MASTER_KEY: randomBytes(32).toString('hex'),
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
  DEMO_ON_FIRST_START: 'false',
  // The catalogue measured when its answer cache misses: every request queries and serialises.
  CATALOGUE_CACHE_ENTRIES: '0',
  CATALOGUE_STALENESS_MS: '0',
  API_KEY_CACHE_MS: process.env['API_KEY_CACHE_MS'],
  ESIM_CACHE_MS: process.env['ESIM_CACHE_MS'],
});

const setup = await openServices(config);
const org = await createOrganisation(
  {
    db: setup.deps.store.db,
    clock: setup.deps.clock,
    random: setup.deps.random,
    cipher: setup.deps.cipher,
  },
  { name: 'Benchmark Org', groups: BUILT_IN_GROUPS },
  (trx, created) =>
    openAccount(trx, {
      organisationId: created.id,
      balance: 1_000_000,
      at: setup.deps.clock.now(),
    }),
);
await setup.close();
const server = await startServer(config, () => undefined);
const headers = { 'x-api-key': org.apiKey, 'content-type': 'application/json' };

async function call(method: string, path: string, body?: unknown): Promise<Response> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}`);
  return res;
}

// An eSIM as integrations read it: one bundle assigned by an order, the profile installed.
const catalogue = (await (await call('GET', CATALOGUE_PATH)).json()) as { name: string }[];
const bundle = catalogue[0]?.name;
if (bundle === undefined) throw new Error('the catalogue page is empty');
const order = (await (
  await call('POST', '/v2.1/orders', {
    type: 'transaction',
    assign: true,
    order: [{ type: 'bundle', item: bundle, quantity: 1 }],
  })
).json()) as { order: { esims: { iccid: string }[] }[] };
const iccid = order.order[0]?.esims[0]?.iccid;
if (iccid === undefined) throw new Error('the order assigned no eSIM');
await call('POST', `/_sim/esims/${iccid}/install`, {});

export const ESIM_PATH = `/v2.1/esims/${iccid}`;
const PATHS = [ESIM_PATH, CATALOGUE_PATH];

interface Recorded {
  readonly body: Buffer;
  readonly headers: (readonly [string, string])[];
}
const recorded = new Map<string, Recorded>();
for (const path of PATHS) {
  const res = await call('GET', path);
  const copied = ['content-type', 'x-total-count', 'link']
    .map((name) => [name, res.headers.get(name)] as const)
    .filter((pair): pair is readonly [string, string] => pair[1] !== null);
  recorded.set(path.split('?')[0] ?? path, {
    body: Buffer.from(await res.arrayBuffer()),
    headers: copied,
  });
}

const bare = Fastify({ logger: false });
for (const [route, answer] of recorded) {
  bare.get(route, async (_request, reply) => {
    for (const [name, value] of answer.headers) reply.header(name, value);
    return reply.send(answer.body);
  });
}
const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });

process.stdout.write(
  JSON.stringify({
    appUrl: server.url,
    bareUrl,
    apiKey: org.apiKey,
    paths: PATHS.map((path) => ({
      path,
      bytes: recorded.get(path.split('?')[0] ?? path)?.body.length ?? 0,
    })),
  }) + '\n',
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
