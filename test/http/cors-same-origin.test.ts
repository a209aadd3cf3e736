import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// The simulator's control plane (/_sim: no token by default, a snapshot holds every key) and the
// portal never grant a browser on another origin anything, whatever CORS_ORIGINS says, preflights
// included; the API keeps the CORS of docs/configuration.md. Only HTTP is involved, so this runs
// on the embedded database alone.

const EVIL = 'https://evil.example';
const LISTED = 'https://app.example.com';

const preflight = (url: string, origin: string, method = 'PUT') => ({
  method: 'OPTIONS' as const,
  url,
  headers: {
    origin,
    'access-control-request-method': method,
    'access-control-request-headers': 'content-type, authorization',
  },
});

const GRANTS = [
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-allow-credentials',
  'access-control-expose-headers',
];

function noGrant(res: { headers: Record<string, unknown> }, what: string): void {
  for (const header of GRANTS) assert.equal(res.headers[header], undefined, `${what}: ${header}`);
}

for (const origins of [['*'], [LISTED, EVIL]]) {
  describe(`CORS stays off /_sim and /portal with CORS_ORIGINS=${origins.join(',')}`, () => {
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      // Without the built-in catalogue (thousands of rows) a snapshot here is kilobytes.
      t = await startTestApp('sqlite', { corsOrigins: origins, catalogueSeed: false });
      org = await t.createOrg({ balance: 1000 });
    });
    after(() => t.close());

    it('answers /_sim and /portal from other origins without a grant, preflights included', async () => {
      for (const origin of [EVIL, LISTED]) {
        for (const url of ['/_sim/snapshot', '/_sim/faults', '/_sim/clock/advance', '/portal/']) {
          const pre = await t.app.inject(preflight(url, origin));
          assert.equal(pre.statusCode, 204, `${url}: ${pre.body}`);
          noGrant(pre, `OPTIONS ${url} from ${origin}`);
        }
        // Spellings the router also takes to the control plane.
        for (const url of ['/%5Fsim/snapshot', '//_sim/snapshot', '/_sim']) {
          noGrant(await t.app.inject(preflight(url, origin)), `OPTIONS ${url}`);
        }
        const snapshot = await t.app.inject({ url: '/_sim/snapshot', headers: { origin } });
        assert.equal(snapshot.statusCode, 200);
        noGrant(snapshot, `GET /_sim/snapshot from ${origin}`);
        const clock = await t.app.inject({ url: '/_sim/clock', headers: { origin } });
        noGrant(clock, 'GET /_sim/clock');
        const portal = await t.app.inject({ url: '/portal/sign-in', headers: { origin } });
        noGrant(portal, 'GET /portal/sign-in');
      }
    });

    it('keeps the API CORS as configured', async () => {
      const pre = await t.app.inject(preflight('/v2.1/orders', LISTED, 'POST'));
      assert.equal(pre.statusCode, 204);
      assert.equal(pre.headers['access-control-allow-origin'], origins[0] === '*' ? '*' : LISTED);
      assert.match(String(pre.headers['access-control-allow-methods']), /POST/);
      const res = await t.request(org.apiKey, {
        url: '/v2.1/organisation',
        headers: { origin: LISTED },
      });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['access-control-allow-origin'], origins[0] === '*' ? '*' : LISTED);
    });
  });
}
