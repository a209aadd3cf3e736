// The process under test for bench/versions.ts: the real service (simulator mode, a fresh SQLite
// file, the built-in catalogue, the catalogue's answer cache off) with one organisation whose
// balance outlasts the run, one installed eSIM and a bundle to order. Prints one JSON line, then
// waits for stdin to close.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { BUILT_IN_GROUPS } from '../src/domain/catalogue/naming.js';
import { openAccount } from '../src/domain/money/ledger.js';
import { createOrganisation } from '../src/domain/organisations/organisation-changes.js';
import { openServices, startServer } from '../src/main.js';

const dir = mkdtempSync(join(tmpdir(), 'esim-bench-versions-'));
const config = loadConfig({
  MODE: 'simulator',
  DATABASE_URL: `sqlite:${join(dir, 'bench.sqlite')}`,
  DATA_DIR: dir,
  MASTER_KEY: randomBytes(32).toString('hex'),
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
  DEMO_ON_FIRST_START: 'false',
  CATALOGUE_CACHE_ENTRIES: '0',
  CATALOGUE_STALENESS_MS: '0',
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
      // Enough for every order of a long run.
      balance: 1_000_000_000_000,
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

const catalogue = (await (await call('GET', '/v2.1/catalogue?countries=FR&perPage=50')).json()) as {
  name: string;
}[];
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

process.stdout.write(
  JSON.stringify({ appUrl: server.url, apiKey: org.apiKey, iccid, bundle }) + '\n',
);

process.stdin.resume();
process.stdin.on('end', () => {
  void (async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  })();
});
