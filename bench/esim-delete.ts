// Benchmark: what deleting an eSIM costs as one organisation grows. Builds an organisation to
// each size by bulk inserts of eSIMs through the store (numbered by the same triggers as any
// issue), then deletes its oldest live eSIMs one at a time through DELETE /v2.5/esims/{iccid}
// (app.inject, the app the server runs): each has about `size` eSIMs issued after it. Prints per
// size the median wall time and process CPU of a deletion and the rows its statements wrote
// (the statements' own affected rows, counted by a store plugin; rows written by triggers are
// not in it). Then it times the first, middle and last page of GET /v2.1/esims (both directions)
// with those deletions in place, after deleting `BENCH_SCATTERED` (default 0) more spread over
// the list.
//   npx tsx bench/esim-delete.ts [sqlite|postgres] [10000,100000]
// See bench/README.md.
import { performance } from 'node:perf_hooks';
import type { KyselyPlugin } from 'kysely';
import { buildApp } from '../src/app.js';
import { OffsetClock } from '../src/clock.js';
import { testConfig } from '../src/config.js';
import { openAccount } from '../src/domain/money/ledger.js';
import { createOrganisation } from '../src/domain/organisations/organisation-changes.js';
import { openServices } from '../src/main.js';
import { openStore } from '../src/store/database.js';
import { withPlugins } from '../src/store/store-plugins.js';
import { scratchDatabase } from './scratch-database.js';

const ROWS_PER_STATEMENT = 1000;
const DELETIONS_PER_SIZE = 7;

/** The digits with their Luhn check digit appended (an ICCID's last digit). */
function withLuhn(digits: string): string {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return `${digits}${(10 - (sum % 10)) % 10}`;
}

const iccidOf = (serial: number) => withLuhn(`8944${String(serial).padStart(14, '0')}`);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

async function main(): Promise<void> {
  const kind = process.argv[2] ?? 'sqlite';
  const sizes = (process.argv[3] ?? '10000,100000').split(',').map(Number);
  const scattered = Number(process.env['BENCH_SCATTERED'] ?? '0');
  const db0 = await scratchDatabase(kind, 'delete');
  const config = testConfig({ database: db0.target });
  let written = 0;
  const counting: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult(args) {
      written += Number(args.result.numAffectedRows ?? 0);
      return Promise.resolve(args.result);
    },
  };
  const store = withPlugins(openStore(config.database, { poolSize: 10 }), [
    { kysely: counting, direct: () => undefined },
  ]);
  const opened = await openServices(config, { store, clock: new OffsetClock() });
  const deps = opened.deps;
  const app = await buildApp(deps, { logLevel: 'silent' });
  await app.ready();
  const db = deps.store.db;
  const org = await createOrganisation(
    { db, clock: deps.clock, random: deps.random, cipher: deps.cipher },
    { name: 'Delete Bench Org' },
    (trx, o) => openAccount(trx, { organisationId: o.id, balance: 1_000, at: deps.clock.now() }),
  );
  const headers = { 'x-api-key': org.apiKey };
  const print = (line: string) => process.stdout.write(`${line}\n`);
  print(`eSIM deletion benchmark on ${kind}`);
  print(
    '| eSIMs | eSIMs issued after the deleted one | median wall ms | median CPU ms | rows written |',
  );
  print('|---|---|---|---|---|');

  let loaded = 0;
  let oldest = 0;
  const base = Date.parse('2025-01-01T00:00:00Z');
  for (const size of sizes) {
    while (loaded < size) {
      const n = Math.min(ROWS_PER_STATEMENT, size - loaded);
      const rows = Array.from({ length: n }, (_, i) => {
        const serial = loaded + i + 1;
        const iccid = iccidOf(serial);
        return {
          iccid,
          organisation_id: org.id,
          matching_id: `M${iccid}`,
          smdp_address: 'smdp.example',
          profile_status: 'Released' as const,
          pin: '1234',
          puk: '12345678',
          msisdn: null,
          first_installed_at: null,
          order_reference: null,
          created_at: new Date(base + serial * 1000).toISOString(),
          customer_ref: null,
        };
      });
      await db.insertInto('esims').values(rows).execute();
      loaded += n;
    }
    const wall: number[] = [];
    const cpu: number[] = [];
    const rowsWritten: number[] = [];
    for (let i = 0; i < DELETIONS_PER_SIZE; i += 1) {
      oldest += 1;
      written = 0;
      const c = process.cpuUsage();
      const t = performance.now();
      const res = await app.inject({
        method: 'DELETE',
        url: `/v2.5/esims/${iccidOf(oldest)}`,
        headers,
      });
      wall.push(performance.now() - t);
      const d = process.cpuUsage(c);
      cpu.push((d.user + d.system) / 1000);
      rowsWritten.push(written);
      if (res.statusCode !== 200) throw new Error(`delete: ${res.statusCode} ${res.body}`);
    }
    print(
      `| ${size} | ${size - oldest} | ${median(wall).toFixed(2)} | ${median(cpu).toFixed(2)} | ${median(rowsWritten)} |`,
    );
  }
  {
    // Spread over the list, after the oldest ones deleted above.
    const step = Math.floor((loaded - oldest) / Math.max(1, scattered));
    for (let i = 0; i < scattered; i += 1) {
      const res = await app.inject({
        method: 'DELETE',
        url: `/v2.5/esims/${iccidOf(oldest + 1 + i * step)}`,
        headers,
      });
      if (res.statusCode !== 200) throw new Error(`delete: ${res.statusCode} ${res.body}`);
    }
    const get = async (url: string) => {
      const res = await app.inject({ method: 'GET', url, headers });
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
      return res;
    };
    const total = (await get('/v2.1/esims?perPage=1')).json<{ rows: number }>().rows;
    const last = Math.ceil(total / 50);
    print(`\n${loaded} eSIMs, ${loaded - total} deleted (${oldest} oldest, ${scattered} spread)`);
    print('| request | median CPU ms | median wall ms |');
    print('|---|---|---|');
    for (const [label, url] of [
      ['esims first', '/v2.1/esims?perPage=50'],
      ['esims middle', `/v2.1/esims?perPage=50&page=${Math.ceil(last / 2)}`],
      ['esims last', `/v2.1/esims?perPage=50&page=${last}`],
      ['esims middle desc', `/v2.1/esims?perPage=50&page=${Math.ceil(last / 2)}&direction=desc`],
      ['esims last desc', `/v2.1/esims?perPage=50&page=${last}&direction=desc`],
    ] as const) {
      const wallMs: number[] = [];
      const cpuMs: number[] = [];
      for (let i = 0; i < 18; i += 1) {
        const c = process.cpuUsage();
        const t = performance.now();
        await get(url);
        if (i < 3) continue;
        wallMs.push(performance.now() - t);
        const d = process.cpuUsage(c);
        cpuMs.push((d.user + d.system) / 1000);
      }
      print(`| ${label} | ${median(cpuMs).toFixed(2)} | ${median(wallMs).toFixed(2)} |`);
    }
  }
  await app.close();
  await opened.close();
  await db0.drop();
}

await main();
