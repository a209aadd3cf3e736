// Measurement: how large and how slow a catalogue page is as perPage grows, to choose the
// maximum of perPage (docs/catalogue.md). The real app on a fresh in-memory SQLite database with
// the built-in catalogue, one organisation in every built-in group, the answer cache off (so each
// request queries the database and serialises the page), requests through app.inject.
//   npx tsx bench/catalogue-page-size.ts
import { randomBytes } from 'node:crypto';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { BUILT_IN_GROUPS } from '../src/domain/catalogue/naming.js';
import { createOrganisation } from '../src/domain/organisations/organisation-changes.js';
import { openServices } from '../src/main.js';

const SIZES = [50, 500, 1000, 5000];
const ROUNDS = 5;

const config = loadConfig({
  MODE: 'simulator',
  DATABASE_URL: 'sqlite::memory:',
  MASTER_KEY: randomBytes(32).toString('hex'),
  LOG_LEVEL: 'silent',
  DEMO_ON_FIRST_START: 'false',
  CATALOGUE_CACHE_ENTRIES: '0',
  CATALOGUE_STALENESS_MS: '0',
});
const services = await openServices(config);
const app = await buildApp(services.deps, { logLevel: 'silent' });
const org = await createOrganisation(
  {
    db: services.deps.store.db,
    clock: services.deps.clock,
    random: services.deps.random,
    cipher: services.deps.cipher,
  },
  { name: 'Page size', groups: BUILT_IN_GROUPS },
);
for (const perPage of SIZES) {
  const times: number[] = [];
  let bytes = 0;
  let count = 0;
  let total = '';
  for (let i = 0; i < ROUNDS; i += 1) {
    const started = process.hrtime.bigint();
    const res = await app.inject({
      method: 'GET',
      url: `/v2.1/catalogue?perPage=${perPage}`,
      headers: { 'x-api-key': org.apiKey },
    });
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (res.statusCode !== 200)
      throw new Error(`perPage=${perPage}: ${res.statusCode} ${res.body}`);
    bytes = res.rawPayload.length;
    count = (res.json() as unknown[]).length;
    total = String(res.headers['x-total-count']);
  }
  times.sort((a, b) => a - b);
  console.log(
    `perPage=${String(perPage).padEnd(6)} bundles ${String(count).padStart(5)} of ${total}  ` +
      `${(bytes / 1024).toFixed(0).padStart(6)} kB  median ${times[Math.floor(ROUNDS / 2)]?.toFixed(1)} ms  ` +
      `max ${times[ROUNDS - 1]?.toFixed(1)} ms`,
  );
}
await app.close();
await services.close();
