import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';

// The settings of rate limits, Redis, the client address and /metrics.

const PRODUCTION = { MODE: 'production', MASTER_KEY: 'ab'.repeat(32) };

function refused(env: Record<string, string>, setting: string): void {
  assert.throws(
    () => loadConfig(env),
    (error: unknown) => error instanceof ConfigError && error.setting === setting,
    `${JSON.stringify(env)} should be refused naming ${setting}`,
  );
}

describe('loadConfig: rate limits, Redis and metrics', () => {
  it('limits requests by default in production only, and either can be switched', () => {
    assert.equal(loadConfig({}).rateLimitEnabled, false);
    assert.equal(loadConfig(PRODUCTION).rateLimitEnabled, true);
    assert.equal(loadConfig({ RATE_LIMIT: 'on' }).rateLimitEnabled, true);
    assert.equal(loadConfig({ ...PRODUCTION, RATE_LIMIT: 'off' }).rateLimitEnabled, false);
    const config = loadConfig({});
    assert.equal(config.rateLimitPoints, 10);
    assert.equal(config.rateLimitWindowSeconds, 1);
    assert.deepEqual(config.rateLimitCosts, { 'GET /catalogue': 5 });
    assert.equal(config.rateLimitAuthFailures, 10);
    assert.equal(config.rateLimitAuthWindowSeconds, 60);
    assert.equal(config.redisUrl, undefined);
    assert.equal(config.redisKeyPrefix, 'esim:');
    assert.equal(config.trustProxy, false);
  });

  it('reads route costs, Redis and proxy settings', () => {
    const config = loadConfig({
      RATE_LIMIT_COSTS: 'get /catalogue=5, POST /orders = 2,GET /esims/:iccid=0',
      REDIS_URL: 'redis://cache.internal:6379/2',
      TRUST_PROXY: '10.0.0.0/8, 192.168.1.1',
    });
    assert.deepEqual(config.rateLimitCosts, {
      'GET /catalogue': 5,
      'POST /orders': 2,
      'GET /esims/:iccid': 0,
    });
    assert.equal(config.redisUrl, 'redis://cache.internal:6379/2');
    assert.equal(config.trustProxy, '10.0.0.0/8,192.168.1.1');
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
  });

  it('refuses bad values, naming the setting', () => {
    refused({ RATE_LIMIT: 'sometimes' }, 'RATE_LIMIT');
    refused({ RATE_LIMIT_POINTS: '0' }, 'RATE_LIMIT_POINTS');
    refused({ RATE_LIMIT_WINDOW_SECONDS: 'a second' }, 'RATE_LIMIT_WINDOW_SECONDS');
    refused({ RATE_LIMIT_COSTS: 'catalogue=5' }, 'RATE_LIMIT_COSTS');
    refused({ RATE_LIMIT_COSTS: 'GET /catalogue=-1' }, 'RATE_LIMIT_COSTS');
    refused({ RATE_LIMIT_AUTH_FAILURES: '0' }, 'RATE_LIMIT_AUTH_FAILURES');
    refused({ REDIS_URL: 'http://cache:6379' }, 'REDIS_URL');
    refused({ REDIS_URL: 'not a url' }, 'REDIS_URL');
    refused({ TRUST_PROXY: 'the load balancer' }, 'TRUST_PROXY');
    refused({ METRICS_PORT: '70000' }, 'METRICS_PORT');
  });

  it('reads where /metrics is served', () => {
    const config = loadConfig({ METRICS_PORT: '9464', METRICS_TOKEN: 't0ken' });
    assert.equal(config.metricsPort, 9464);
    assert.equal(config.metricsHost, '127.0.0.1');
    assert.equal(config.metricsToken, 't0ken');
    assert.equal(loadConfig({}).metricsPort, undefined);
    assert.equal(loadConfig({ METRICS_TOKEN: '' }).metricsToken, undefined);
  });

  it('takes a METRICS_TOKEN of 16 characters or more in production, and never echoes one', () => {
    const short = 'scrape-me-please'.slice(0, 15);
    refused({ ...PRODUCTION, METRICS_TOKEN: short }, 'METRICS_TOKEN');
    assert.throws(
      () => loadConfig({ ...PRODUCTION, METRICS_TOKEN: short }),
      (error: unknown) =>
        error instanceof Error &&
        /at least 16 characters in production/.test(error.message) &&
        !error.message.includes(short),
    );
    const token = 'scrape-me-please';
    assert.equal(loadConfig({ ...PRODUCTION, METRICS_TOKEN: token }).metricsToken, token);
  });
});
