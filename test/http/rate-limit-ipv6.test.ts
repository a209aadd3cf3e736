import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// Per-address limits count an IPv6 client by its /64 (RATE_LIMIT_IPV6_PREFIX): behind a trusted
// proxy, rotating through the addresses of one /64 neither escapes the failed-authentication
// count nor gets a fresh request budget, while another /64 is another client.

const LIMITS = {
  rateLimitEnabled: true,
  rateLimitPoints: 6,
  rateLimitWindowSeconds: 120,
  rateLimitAuthFailures: 5,
  rateLimitAuthWindowSeconds: 120,
  trustProxy: true,
};

const from = (t: TestApp, apiKey: string, address: string, version = '2.1') =>
  t.request(apiKey, {
    method: 'GET',
    url: `/v${version}/organisation`,
    headers: { 'x-forwarded-for': address },
    remoteAddress: '10.0.0.2',
  });

for (const kind of DATABASES) {
  describe(`per-address limits group IPv6 by /64 [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      t = await startTestApp(kind, LIMITS);
      org = await t.createOrg();
    });
    after(() => t.close());

    it('counts bad keys from every address of a /64 together', async () => {
      for (let i = 1; i <= 5; i += 1) {
        const res = await from(t, `esim_guess${i}`, `2001:db8::${i.toString(16)}`);
        assert.equal(res.statusCode, 403, `guess ${i}`);
      }
      const next = await from(t, 'esim_guess6', '2001:db8::15');
      assert.equal(next.statusCode, 429, next.body);
      assert.equal((await from(t, 'esim_guess7', '2001:db8::ffff:1')).statusCode, 429);
      // Another /64 is another client.
      assert.equal((await from(t, 'esim_wrong', '2001:db8:0:1::1')).statusCode, 403);
      assert.equal((await from(t, org.apiKey, '2001:db8:0:2::1')).statusCode, 200);
    });

    it('spends one address budget (v2.4+) for the whole /64', async () => {
      const statuses: number[] = [];
      for (let i = 1; i <= 7; i += 1) {
        statuses.push((await from(t, org.apiKey, `2001:db8:aa:bb::${i}`, '2.4')).statusCode);
      }
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429]);
      assert.equal((await from(t, org.apiKey, '2001:db8:aa:bc::1', '2.4')).statusCode, 200);
    });
  });
}

describe('RATE_LIMIT_IPV6_PREFIX', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('sqlite', { ...LIMITS, rateLimitIpv6Prefix: 128 });
  });
  after(() => t.close());

  it('counts each address apart at /128', async () => {
    const org = await t.createOrg();
    for (let i = 1; i <= 7; i += 1) {
      const res = await from(t, org.apiKey, `2001:db8:cc::${i}`, '2.4');
      assert.equal(res.statusCode, 200, `address ${i}`);
    }
  });

  it('is read from the environment, 64 by default, 32 to 128', () => {
    assert.equal(loadConfig({}).rateLimitIpv6Prefix, 64);
    assert.equal(loadConfig({ RATE_LIMIT_IPV6_PREFIX: '56' }).rateLimitIpv6Prefix, 56);
    for (const bad of ['16', '129', 'wide']) {
      assert.throws(
        () => loadConfig({ RATE_LIMIT_IPV6_PREFIX: bad }),
        (error: unknown) =>
          error instanceof ConfigError && error.setting === 'RATE_LIMIT_IPV6_PREFIX',
        bad,
      );
    }
  });
});
