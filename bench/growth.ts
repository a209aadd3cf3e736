// Benchmark: cost as one organisation grows. Builds an organisation to each size (orders, as
// many eSIMs, and one used-up inventory batch per order, as `assign: true` orders leave; plus 50
// batches with units left) by bulk inserts through the store, not the HTTP API, then measures
// in-process (app.inject, the app the server runs) at each size: the first, middle and last page
// of GET /v2.1/orders, /v2.1/esims (both directions) and /v2.1/callbacks (one usage callback per
// eSIM, 1 % failed: by number, by key, by status), GET /v2.1/inventory, an eSIM's detail, history
// and bundles, GET /v2.4/esims filtered by customerRef (every eSIM has its own, c-<serial>: a
// whole one, a prefix all match, a page after a key, a pattern with a leading *), the portal's
// eSIM list, ICCID search and Overview,
// orders placed per second (against the same figure on the empty organisation, same run), the
// database's bytes per order, and the process RSS at the end. One database per run:
//   npx tsx bench/growth.ts [sqlite|postgres] [10000,100000,...]
// See bench/README.md.
import { readFileSync, readdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { buildApp } from '../src/app.js';
import { OffsetClock, iso } from '../src/clock.js';
import { testConfig } from '../src/config.js';
import { saveBundles } from '../src/domain/catalogue/save-bundles.js';
import { openAccount } from '../src/domain/money/ledger.js';
import { addUser, createOrganisation } from '../src/domain/organisations/organisation-changes.js';
import { setPassword } from '../src/domain/access/set-password-links.js';
import { systemActor } from '../src/domain/audit/audit-log.js';
import { openServices } from '../src/main.js';
import { openStore } from '../src/store/database.js';
import { startProfile } from './profile.js';
import { dropUnlessKept, scratchDatabase } from './scratch-database.js';

const BUNDLE = 'bench_growth_unit';
const ROWS_PER_STATEMENT = 1000;
/** Orders placed per round of the order rate; rounds alternate the grown and control organisations. */
const ORDERS_MEASURED = Number(process.env['BENCH_ORDERS'] ?? '1000');
const ORDER_ROUNDS = Number(process.env['BENCH_ORDER_ROUNDS'] ?? '5');
/** Batches with units left at every size (the rest are used up). */
const KEPT_LEFT = 50;

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

/** A full garbage collection, without starting node with --expose-gc. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

const pct = (share: number): string => `${(share * 100).toFixed(0)} %`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

/** Median CPU (user + system) and wall time of one request, in ms, over `runs` after a warm-up. */
async function measure(
  run: () => Promise<unknown>,
  runs = 15,
): Promise<{ cpu: number; wall: number }> {
  for (let i = 0; i < 3; i += 1) await run();
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const c = process.cpuUsage();
    const t = performance.now();
    await run();
    wall.push(performance.now() - t);
    const d = process.cpuUsage(c);
    cpu.push((d.user + d.system) / 1000);
  }
  return { cpu: median(cpu), wall: median(wall) };
}

/**
 * Where the resident memory is, on Linux: anonymous (heaps, native allocations), file-backed
 * (code, mapped files) and shared (SQLite's WAL index); empty elsewhere.
 */
function rssParts(): string {
  let status: string;
  try {
    status = readFileSync('/proc/self/status', 'utf8');
  } catch {
    return '';
  }
  const kib = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  const parts = ['RssAnon', 'RssFile', 'RssShmem'].map(
    (f) => `${f} ${(kib(f) / 1024).toFixed(0)} MiB`,
  );
  return `; ${parts.join(', ')}`;
}

/** One mapping of /proc/self/smaps: its addresses, permissions, what backs it and its Rss. */
interface Mapping {
  start: bigint;
  end: bigint;
  perms: string;
  path: string;
  rss: number;
}

function smaps(): Mapping[] {
  const maps: Mapping[] = [];
  let current: Mapping | undefined;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (header !== null) {
      current = {
        start: BigInt(`0x${header[1]}`),
        end: BigInt(`0x${header[2]}`),
        perms: header[3] ?? '',
        path: header[4] ?? '',
        rss: 0,
      };
      maps.push(current);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss !== null && current !== undefined) current.rss = Number(rss[1]) * 1024;
  }
  return maps;
}

/** glibc's heaps of the arenas other than the main one: reservations of 64 MiB, so aligned. */
const ARENA_HEAP = 64n * 1024n * 1024n;

/**
 * Resident memory by kind of mapping (BENCH_SMAPS=1, Linux): the main malloc arena ([heap]: the
 * main thread's allocations, SQLite's page cache among them), the other threads' arenas (each
 * heap a 64 MiB-aligned reservation, the unused rest of it inaccessible), thread stacks (behind a
 * guard page), the other anonymous mappings (V8's heap pages and code, and malloc's own mappings
 * of large blocks) with the share V8 counts as its heap spaces, and file-backed mappings (the
 * binary, its libraries, the driver's addon); then V8's spaces and process.memoryUsage().
 */
function smapsBreakdown(): string {
  let maps: Mapping[];
  try {
    maps = smaps();
  } catch {
    return '';
  }
  const sums = { heap: 0, arenas: 0, stacks: 0, otherAnon: 0, file: 0, other: 0 };
  const arenas: number[] = [];
  maps.forEach((m, i) => {
    const next = maps[i + 1];
    const prev = maps[i - 1];
    if (m.path === '[heap]') sums.heap += m.rss;
    else if (m.path.startsWith('/')) sums.file += m.rss;
    else if (m.path !== '') sums.other += m.rss;
    else if (
      m.start % ARENA_HEAP === 0n &&
      m.perms.startsWith('rw') &&
      (m.end - m.start === ARENA_HEAP ||
        (next !== undefined &&
          next.start === m.end &&
          next.perms.startsWith('---') &&
          next.path === '' &&
          next.end === m.start + ARENA_HEAP))
    ) {
      sums.arenas += m.rss;
      arenas.push(m.rss);
    } else if (
      m.perms.startsWith('rw') &&
      prev !== undefined &&
      prev.end === m.start &&
      prev.perms.startsWith('---') &&
      prev.path === '' &&
      prev.end - prev.start <= 65536n
    )
      sums.stacks += m.rss;
    else sums.otherAnon += m.rss;
  });
  const spaces = getHeapSpaceStatistics();
  const v8Heap = spaces.reduce((n, s) => n + s.physical_space_size, 0);
  const mib = (bytes: number) => (bytes / 1048576).toFixed(1);
  const big = arenas.filter((r) => r >= 1048576).sort((a, b) => b - a);
  const memory = process.memoryUsage();
  return [
    `smaps: [heap] (main arena) ${mib(sums.heap)} MiB; thread arenas ${mib(sums.arenas)} MiB in ${arenas.length} heaps (over 1 MiB: ${big.map(mib).join(', ') || 'none'}); thread stacks ${mib(sums.stacks)} MiB; other anonymous ${mib(sums.otherAnon)} MiB (V8's heap spaces ${mib(v8Heap)} MiB of it); file-backed ${mib(sums.file)} MiB; [stack], [vdso] and the like ${mib(sums.other)} MiB`,
    `V8 spaces (resident / used MiB): ${spaces
      .filter((s) => s.physical_space_size > 0)
      .map(
        (s) =>
          `${s.space_name} ${(s.physical_space_size / 1048576).toFixed(1)}/${(s.space_used_size / 1048576).toFixed(1)}`,
      )
      .join(', ')}`,
    `process.memoryUsage(): rss ${mib(memory.rss)}, heapTotal ${mib(memory.heapTotal)}, heapUsed ${mib(memory.heapUsed)}, external ${mib(memory.external)}, arrayBuffers ${mib(memory.arrayBuffers)} MiB; ${readdirSync('/proc/self/task').length} threads`,
  ].join('\n');
}

/**
 * Memory once V8 has given back the pages a collection emptied: it unmaps them on a background
 * thread some milliseconds after the collection returns (6 to 30 ms later on a busy two-core
 * machine), so RSS read at once still counts them. Read every 100 ms until it stops falling (at
 * most 2 s).
 */
async function settledMemory(): Promise<NodeJS.MemoryUsage> {
  let last = process.memoryUsage();
  for (let waited = 0; waited < 2000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = process.memoryUsage();
    if (now.rss >= last.rss) return now;
    last = now;
  }
  return last;
}

async function main(): Promise<void> {
  const kind = process.argv[2] ?? 'sqlite';
  const sizes = (process.argv[3] ?? '10000,100000').split(',').map(Number);
  const db0 = await scratchDatabase(kind, 'growth');
  const config = testConfig({ database: db0.target, inventoryValidityDays: 365 });
  const clock = new OffsetClock();
  const store = openStore(config.database, { poolSize: 10 });
  const opened = await openServices(config, { store, clock });
  const deps = opened.deps;
  const app = await buildApp(deps, { logLevel: 'silent' });
  await app.ready();
  const db = deps.store.db;
  const now = () => iso(deps.clock.now());
  await db.transaction().execute((trx) =>
    saveBundles(
      trx,
      [
        {
          name: BUNDLE,
          description: 'Growth benchmark unit',
          groups: ['Standard eSIM Bundles'],
          countries: ['GB'],
          roaming: ['FR'],
          dataAmount: 1000,
          duration: 7,
          speed: ['4G'],
          autostart: true,
          unlimited: false,
          price: 1,
        },
      ],
      now(),
    ),
  );
  const org = await createOrganisation(
    { db, clock: deps.clock, random: deps.random, cipher: deps.cipher },
    { name: 'Growth Org' },
    (trx, o) =>
      openAccount(trx, { organisationId: o.id, balance: 1_000_000_000, at: deps.clock.now() }),
  );
  const headers = { 'x-api-key': org.apiKey };
  // An organisation that never grows, in the same database: its order rate, measured in rounds
  // alternating with the grown organisation's, is the same-moment baseline at every size.
  const control = await createOrganisation(
    { db, clock: deps.clock, random: deps.random, cipher: deps.cipher },
    { name: 'Growth Control Org' },
    (trx, o) =>
      openAccount(trx, { organisationId: o.id, balance: 1_000_000_000, at: deps.clock.now() }),
  );
  const controlHeaders = { 'x-api-key': control.apiKey };
  const get = async (url: string) => {
    const res = await app.inject({ method: 'GET', url, headers });
    if (res.statusCode !== 200)
      throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    return res;
  };
  // A portal session of the organisation's Admin, signed in through the pages.
  const orgDeps = { db, clock: deps.clock, random: deps.random, cipher: deps.cipher };
  const user = await addUser(orgDeps, org.id, {
    email: 'growth@bench.example',
    firstName: 'Growth',
    lastName: 'Bench',
    role: 'Admin',
    timeZone: 'Europe/London',
  });
  await setPassword(deps, systemActor, user, 'growth bench password');
  const cookiesOf = (res: { cookies: { name: string; value: string }[] }) =>
    res.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  const form = await app.inject({ method: 'GET', url: '/portal/sign-in' });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
  const signedIn = await app.inject({
    method: 'POST',
    url: '/portal/sign-in',
    headers: { cookie: cookiesOf(form), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      _csrf: csrf,
      email: 'growth@bench.example',
      password: 'growth bench password',
    }).toString(),
  });
  const portalCookie = cookiesOf(signedIn);
  const page = async (url: string) => {
    const res = await app.inject({ method: 'GET', url, headers: { cookie: portalCookie } });
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
    return res;
  };
  const orderOnce = async (by: Record<string, string>) => {
    const res = await app.inject({
      method: 'POST',
      url: '/v2.1/orders',
      headers: by,
      payload: {
        type: 'transaction',
        assign: false,
        order: [{ type: 'bundle', item: BUNDLE, quantity: 1 }],
      },
    });
    if (res.statusCode !== 200) throw new Error(`order: ${res.statusCode} ${res.body}`);
  };
  /**
   * Orders placed 8 at a time by one organisation: orders per second (wall) and the process's CPU
   * per order, which a busy machine moves far less. With BENCH_PROFILE_DIR, a CPU profile of the
   * run is written there.
   */
  const ordersPerSecond = async (
    label: string,
    by: Record<string, string> = headers,
    n = ORDERS_MEASURED,
  ) => {
    const profile = await startProfile();
    const c = process.cpuUsage();
    const t = performance.now();
    for (let i = 0; i < n / 8; i += 1) {
      await Promise.all(Array.from({ length: 8 }, () => orderOnce(by)));
    }
    const seconds = (performance.now() - t) / 1000;
    const d = process.cpuUsage(c);
    await profile?.stop(`orders-${kind}-${label}`);
    return { rate: n / seconds, cpuUs: (d.user + d.system) / n };
  };
  /**
   * ORDER_ROUNDS rounds, each the grown organisation's orders and the control's: the median of
   * each, and the grown organisation's rate as a share of the control's, round by round. A single
   * measurement moves by a fifth between runs of the same build; alternating rounds take the
   * machine's drift out of the comparison.
   */
  const orderRounds = async (label: string) => {
    const grown: { rate: number; cpuUs: number }[] = [];
    const same: { rate: number; cpuUs: number }[] = [];
    for (let round = 0; round < ORDER_ROUNDS; round += 1) {
      // Which goes first alternates: the second of a pair runs with the first's garbage to
      // collect, which cost it about 7 % when the control always went second.
      const grownRound = () => ordersPerSecond(`${label}-${round}`);
      const controlRound = () => ordersPerSecond(`${label}-control-${round}`, controlHeaders);
      if (round % 2 === 0) {
        grown.push(await grownRound());
        same.push(await controlRound());
      } else {
        same.push(await controlRound());
        grown.push(await grownRound());
      }
    }
    const shares = grown.map((g, i) => g.rate / (same[i]?.rate ?? NaN));
    return {
      rate: median(grown.map((g) => g.rate)),
      cpuUs: median(grown.map((g) => g.cpuUs)),
      controlRate: median(same.map((g) => g.rate)),
      share: median(shares),
      shares,
    };
  };
  /**
   * The units the measured orders bought are used up, as an assign: true order's are, so the
   * inventory read at each size holds the used-up batches and KEPT_LEFT with units left.
   */
  const useUp = async () => {
    await db
      .updateTable('inventory_batches')
      .set({ remaining: 0 })
      .where('organisation_id', 'in', [org.id, control.id])
      .where('remaining', '>', 0)
      .where('order_reference', 'not like', 'left-%')
      .where('order_reference', 'not like', 'kept-%')
      .execute();
  };
  // Compiled and warm before the empty organisation's figure, as at every later size.
  await ordersPerSecond('warm-up');
  await ordersPerSecond('warm-up-control', controlHeaders);
  const empty = await orderRounds('empty');
  const emptyRate = empty.rate;
  await useUp();
  await db
    .insertInto('inventory_batches')
    .values(
      Array.from({ length: KEPT_LEFT }, (_, i) => ({
        organisation_id: org.id,
        bundle_name: BUNDLE,
        order_reference: `kept-${i}`,
        total: 2,
        remaining: 1,
        expiry: new Date(deps.clock.now().getTime() + 300 * 86_400_000).toISOString(),
        created_at: now(),
        source_batch_id: null,
      })),
    )
    .execute();
  const print = (line: string) => process.stdout.write(`${line}\n`);
  print(
    `growth benchmark on ${kind}; orders/s on the empty organisation: ${emptyRate.toFixed(0)} (${empty.cpuUs.toFixed(0)} µs CPU per order), ${pct(empty.share)} of the control's (rounds: ${empty.shares.map(pct).join(', ')}); median of ${ORDER_ROUNDS} rounds of ${ORDERS_MEASURED}`,
  );

  let loaded = 0;
  let serial = 0;
  const base = Date.parse('2025-01-01T00:00:00Z');
  const expiry = new Date(deps.clock.now().getTime() + 300 * 86_400_000).toISOString();
  for (const size of sizes) {
    const loadStart = performance.now();
    while (loaded < size) {
      const n = Math.min(ROWS_PER_STATEMENT, size - loaded);
      const rows = Array.from({ length: n }, () => {
        serial += 1;
        const at = new Date(base + serial * 1000).toISOString();
        const reference = `g${String(serial).padStart(9, '0')}-${randomBytes(4).toString('hex')}`;
        const iccid = withLuhn(`8944${String(serial).padStart(14, '0')}`);
        return { at, reference, iccid, ref: `c-${String(serial).padStart(9, '0')}` };
      });
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('orders')
          .values(
            rows.map((r) => ({
              reference: r.reference,
              organisation_id: org.id,
              status: 'completed' as const,
              status_message: 'Order completed',
              total: 1,
              currency: 'USD',
              assign: 1,
              source: 'order' as const,
              created_at: r.at,
            })),
          )
          .execute();
        await trx
          .insertInto('order_items')
          .values(
            rows.map((r) => ({
              order_reference: r.reference,
              line_no: 1,
              type: 'bundle',
              item: BUNDLE,
              quantity: 1,
              price_per_unit: 1,
              sub_total: 1,
              iccids: JSON.stringify([r.iccid]),
            })),
          )
          .execute();
        await trx
          .insertInto('esims')
          .values(
            rows.map((r) => ({
              iccid: r.iccid,
              organisation_id: org.id,
              matching_id: `M${r.iccid}`,
              smdp_address: 'smdp.example',
              profile_status: 'Released' as const,
              pin: '1234',
              puk: '12345678',
              msisdn: null,
              first_installed_at: null,
              order_reference: r.reference,
              created_at: r.at,
              customer_ref: r.ref,
            })),
          )
          .execute();
        await trx
          .insertInto('inventory_batches')
          .values(
            rows.map((r) => ({
              organisation_id: org.id,
              bundle_name: BUNDLE,
              order_reference: r.reference,
              total: 1,
              remaining: 0,
              expiry,
              created_at: r.at,
              source_batch_id: null,
            })),
          )
          .execute();
        // One usage callback per eSIM, delivered; one in a hundred failed.
        await trx
          .insertInto('callback_events')
          .values(
            rows.map((r, i) => ({
              id: `cb-${r.reference}`,
              organisation_id: org.id,
              iccid: r.iccid,
              alert_type: 'Utilisation',
              payload: '{}',
              status: (loaded + i) % 100 === 0 ? ('failed' as const) : ('delivered' as const),
              attempts: 1,
              next_attempt_at: r.at,
              created_at: r.at,
              updated_at: r.at,
              delivered_at: r.at,
            })),
          )
          .execute();
      });
      loaded += n;
    }
    const loadSeconds = (performance.now() - loadStart) / 1000;
    // The statistics autovacuum keeps on a running server (PostgreSQL's default; it may be off on
    // a development server): without them the planner takes every table for a small one and
    // reads a page's order items by scanning the table.
    if (kind === 'postgres') {
      const { sql } = await import('kysely');
      await sql`analyze`.execute(db);
    }
    // The bulk load's garbage is the loader's, not the service's: collected before measuring, so
    // V8's concurrent marking of it does not land in the first requests' CPU figures.
    collectGarbage();
    const total = Number((await get('/v2.1/orders?perPage=1')).headers['x-total-count']);
    const last = Math.ceil(total / 50);
    const esimTotal = (await get('/v2.1/esims?perPage=1')).json<{ rows: number }>().rows;
    const esimLast = Math.ceil(esimTotal / 50);
    const middleIccid = (await get(`/v2.1/esims?perPage=1&page=${Math.ceil(esimTotal / 2)}`)).json<{
      esims: { iccid: string }[];
    }>().esims[0]?.iccid;
    const middleRef = `c-${String(Math.ceil(serial / 2)).padStart(9, '0')}`;
    const byRef = (filter: string) =>
      `/v2.4/esims?perPage=50&filterBy=customerRef&filter=${encodeURIComponent(filter)}`;
    const nextOf = async (url: string) =>
      /<[^>]*?(\/v2\.4\/esims[^>]*)>; rel="next"/.exec(
        String((await get(url)).headers['link']),
      )?.[1] ?? url;
    const callbackTotal = Number((await get('/v2.1/callbacks?perPage=1')).headers['x-total-count']);
    const callbackLast = Math.ceil(callbackTotal / 50);
    const failedTotal = Number(
      (await get('/v2.1/callbacks?perPage=1&status=failed')).headers['x-total-count'],
    );
    const failedLast = Math.max(1, Math.ceil(failedTotal / 50));
    const portalCases: [string, string][] = [
      ['portal eSIMs first', '/portal/esims'],
      ['portal eSIMs last', `/portal/esims?page=${esimLast}`],
      ['portal ICCID search (prefix)', `/portal/esims?iccid=${middleIccid?.slice(0, 12) ?? ''}`],
      ['portal ICCID search, next page', `/portal/esims?iccid=8944&after=${middleIccid ?? ''}`],
      ['portal Overview', '/portal'],
      ['portal API page (delivery log)', '/portal/api'],
    ];
    const cases: [string, string][] = [
      ['orders first', '/v2.1/orders?perPage=50'],
      ['orders middle', `/v2.1/orders?perPage=50&page=${Math.ceil(last / 2)}`],
      ['orders last', `/v2.1/orders?perPage=50&page=${last}`],
      ['esims first', '/v2.1/esims?perPage=50'],
      ['esims middle', `/v2.1/esims?perPage=50&page=${Math.ceil(esimLast / 2)}`],
      ['esims last', `/v2.1/esims?perPage=50&page=${esimLast}`],
      ['esims last desc', `/v2.1/esims?perPage=50&page=${esimLast}&direction=desc`],
      ['inventory', '/v2.1/inventory'],
      ['esims by customerRef, eq: (one match)', byRef(`eq:${middleRef}`)],
      ['esims by customerRef, prefix (all match)', byRef('c-')],
      ['esims by customerRef, prefix, next page by key', await nextOf(byRef('c-'))],
      ['esims by customerRef, *7 (one in ten)', byRef('*7')],
      ['esims by customerRef, *7, next page by key', await nextOf(byRef('*7'))],
      ['esim detail', `/v2.1/esims/${middleIccid}`],
      ['esim history', `/v2.1/esims/${middleIccid}/history`],
      ['esim bundles', `/v2.1/esims/${middleIccid}/bundles`],
      ['callbacks first', '/v2.1/callbacks?perPage=50'],
      ['callbacks middle', `/v2.1/callbacks?perPage=50&page=${Math.ceil(callbackLast / 2)}`],
      ['callbacks last', `/v2.1/callbacks?perPage=50&page=${callbackLast}`],
      [
        'callbacks middle by key',
        `/v2.1/callbacks?perPage=50&before=${Math.ceil(callbackTotal / 2)}`,
      ],
      ['callbacks failed first', '/v2.1/callbacks?perPage=50&status=failed'],
      ['callbacks failed last', `/v2.1/callbacks?perPage=50&status=failed&page=${failedLast}`],
      [
        'callbacks delivered middle by key',
        `/v2.1/callbacks?perPage=50&status=delivered&before=${Math.ceil(callbackTotal / 2)}`,
      ],
    ];
    print(
      `\n${size} orders, ${esimTotal} eSIMs (${total} orders counted; bulk load ${loadSeconds.toFixed(1)} s)`,
    );
    print('| request | median server CPU ms | median wall ms |');
    print('|---|---|---|');
    const left = (await get('/v2.1/inventory'))
      .json<{ bundles: { available: unknown[] }[] }>()
      .bundles.reduce((n, b) => n + b.available.length, 0);
    for (const [label, url] of cases) {
      const m = await measure(() => get(url));
      if (label.startsWith('inventory')) {
        print(
          `| inventory (${size} used-up batches, ${left} with units left) | ${m.cpu.toFixed(2)} | ${m.wall.toFixed(2)} |`,
        );
        continue;
      }
      print(`| ${label} | ${m.cpu.toFixed(2)} | ${m.wall.toFixed(2)} |`);
    }
    for (const [label, url] of portalCases) {
      const m = await measure(() => page(url));
      print(`| ${label} | ${m.cpu.toFixed(2)} | ${m.wall.toFixed(2)} |`);
    }
    const orders = await orderRounds(String(size));
    await useUp();
    const bytes = await db0.bytes(db);
    print(
      `| orders/s (8 at a time) | ${orders.rate.toFixed(0)} (${pct(orders.rate / emptyRate)} of empty) | |`,
    );
    print(
      `| same rounds, as a share of the control organisation's | ${pct(orders.share)} (rounds: ${orders.shares.map(pct).join(', ')}; empty: ${pct(empty.share)}) | |`,
    );
    print(
      `| CPU per order, µs | ${orders.cpuUs.toFixed(0)} (${((orders.cpuUs / empty.cpuUs) * 100).toFixed(0)} % of empty) | |`,
    );
    print(
      `| database bytes per order (with its eSIM, item and batch) | ${(bytes / size).toFixed(0)} | |`,
    );
  }
  const left = Number(process.env['BENCH_INVENTORY_LEFT'] ?? '0');
  if (left > 0) {
    // A very large inventory: `left` batches with units left, read by one GET /inventory.
    for (let done = 0; done < left; done += ROWS_PER_STATEMENT) {
      const n = Math.min(ROWS_PER_STATEMENT, left - done);
      await db
        .insertInto('inventory_batches')
        .values(
          Array.from({ length: n }, (_, i) => ({
            organisation_id: org.id,
            bundle_name: BUNDLE,
            order_reference: `left-${done + i}`,
            total: 2,
            remaining: 1,
            expiry,
            created_at: new Date(base + (done + i) * 1000).toISOString(),
            source_batch_id: null,
          })),
        )
        .execute();
    }
    // Over a socket, as a client reads it: the answer streams and nothing here keeps it
    // (app.inject would hold all of it in this process).
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 50);
    const c = process.cpuUsage();
    const t = performance.now();
    const res = await fetch(`${url}/v2.1/inventory`, { headers });
    if (res.status !== 200 || res.body === null) throw new Error(`inventory: ${res.status}`);
    let received = 0;
    for await (const chunk of res.body) received += (chunk as Uint8Array).byteLength;
    const wall = performance.now() - t;
    const d = process.cpuUsage(c);
    clearInterval(sampler);
    print(
      `\nGET /v2.1/inventory with ${left} batches with units left, over a socket: ${(received / 1e6).toFixed(1)} MB in ${(wall / 1000).toFixed(2)} s (${((d.user + d.system) / 1e6).toFixed(2)} s CPU, the reading client's included); RSS ${(rssBefore / 1048576).toFixed(0)} MiB before, ${(rssPeak / 1048576).toFixed(0)} MiB at most during it`,
    );
  }
  const snapshotPath = process.env['BENCH_HEAP_SNAPSHOT'];
  if (snapshotPath !== undefined && snapshotPath !== '') {
    const { writeHeapSnapshot } = await import('node:v8');
    print(`heap snapshot: ${writeHeapSnapshot(snapshotPath)}`);
  }
  const memory = process.memoryUsage();
  const mib = (bytes: number) => (bytes / 1048576).toFixed(0);
  print(
    `\nRSS at the end: ${mib(memory.rss)} MiB (JavaScript heap ${mib(memory.heapUsed)} MiB used of ${mib(memory.heapTotal)}, outside it ${mib(memory.external)} MiB)`,
  );
  // What the process holds once its garbage is collected: RSS above keeps the heap V8 grew to
  // while the measurements made garbage, which it reuses rather than returns at once. Read once V8
  // has unmapped the pages the collection emptied; the figure the moment it returned still
  // counts them (up to 90 MiB more when the run ended with a large heap).
  collectGarbage();
  const atOnce = process.memoryUsage().rss;
  const collected = await settledMemory();
  print(
    `RSS after a full collection: ${mib(collected.rss)} MiB (JavaScript heap ${mib(collected.heapUsed)} MiB used of ${mib(collected.heapTotal)}; ${mib(atOnce)} MiB as the collection returned)${rssParts()}`,
  );
  if (process.env['BENCH_SMAPS'] === '1') print(smapsBreakdown());
  await app.close();
  await opened.close();
  const kept = await dropUnlessKept(db0);
  if (kept !== undefined) print(kept);
}

await main();
