import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { HttpSession, PortalServer } from './portal-harness.js';
import { DATABASES, signInHttp, startPortal } from './portal-harness.js';
import { GB_1GB, buyOntoNewEsims, fixtureIccid, seedEsims } from './shop-fixtures.js';

// The Catalogue, Orders, eSIMs and Inventory pages on an organisation with 10,000 eSIMs: each is
// timed over raw HTTP (the server's whole answer, as a browser would wait for it). The target is
// 300 ms; the assertion leaves room for a loaded CI machine, and docs/portal.md has the figures
// measured on a quiet one (TIMING=1 prints them). The money pages (Overview, Billing, API &
// callbacks) are held to 300 ms, the fastest of five, on the same organisation.

const ESIMS = 10_000;
const RUNS = 5;
const LIMIT_MS = 1500;

async function timed(session: HttpSession, path: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i <= RUNS; i += 1) {
    const start = performance.now();
    const response = await session.get(path);
    await response.text();
    assert.equal(response.status, 200, path);
    if (i > 0) times.push(performance.now() - start); // the first run warms caches up
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Infinity;
}

async function fastest(run: () => Promise<Response>, times: number): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < times; i += 1) {
    const started = performance.now();
    const res = await run();
    assert.equal(res.status, 200);
    await res.text();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

for (const kind of DATABASES) {
  describe(`portal pages on ${ESIMS} eSIMs (${kind})`, () => {
    let server: PortalServer;
    let pages: string[];

    before(async () => {
      server = await startPortal(kind);
      await seedEsims(server.deps, server.organisationId, ESIMS);
      const caller = { baseUrl: server.baseUrl, apiKey: server.organisationApiKey };
      const bought = await buyOntoNewEsims(caller, GB_1GB, 3);
      pages = [
        '/portal/catalogue',
        '/portal/catalogue?countries=FR,DE&region=Europe&description=1GB',
        '/portal/orders',
        `/portal/orders/${bought.reference}`,
        '/portal/esims',
        `/portal/esims?page=${ESIMS / 50}`,
        `/portal/esims?iccid=${fixtureIccid(1, 4321).slice(0, 16)}`,
        `/portal/esims/${fixtureIccid(1, 5000)}`,
        `/portal/esims/${bought.iccids[0] ?? ''}`,
        '/portal/inventory',
      ];
    });
    after(async () => {
      await server.close();
    });

    test(`every page answers within ${LIMIT_MS} ms (target 300 ms)`, async () => {
      const session = await signInHttp(server.baseUrl, 'Admin');
      const list = await session.get('/portal/esims');
      assert.match(await list.text(), /10,003 eSIMs/);
      for (const path of pages) {
        const ms = await timed(session, path);
        if (process.env['TIMING'] === '1') console.log(`${kind} ${ms.toFixed(1)} ms ${path}`);
        assert.ok(ms < LIMIT_MS, `${path} took ${ms.toFixed(1)} ms`);
      }
    });

    test('Overview, Billing and API & callbacks answer in under 300 ms with 10,000 eSIMs', async (t) => {
      const session = await signInHttp(server.baseUrl, 'Admin');
      for (const path of ['/portal', '/portal/billing', '/portal/api']) {
        const ms = await fastest(() => session.get(path), 5);
        t.diagnostic(`${path} with 10,003 eSIMs: ${ms.toFixed(1)} ms (fastest of 5)`);
        assert.ok(ms < 300, `${path} took ${ms.toFixed(0)} ms`);
      }
      const html = await (await session.get('/portal')).text();
      assert.match(html, /data-testid="esims-total">10003</);
    });
  });
}
