import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { createRequestMetrics } from './request-metrics.js';

// The per-request metrics are tallied outside prom-client and handed to it at scrape time; their
// exposition must be exactly what prom-client's own Counter and Histogram give for the same
// responses: names, help, labels, series order, bucket counts and the sum to the last digit.

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const RESPONSES: readonly (readonly [string, string, number, number])[] = [
  ['GET', '/v2.1/esims/:iccid', 200, 0.000731],
  ['GET', '/v2.1/organisation', 200, 0.0049999],
  ['POST', '/v2.1/orders', 200, 0.005],
  ['GET', '/v2.1/esims/:iccid', 404, 0.0123],
  ['GET', '/v2.1/esims/:iccid', 200, 0.25],
  ['GET', 'unmatched', 404, 0.1],
  ['POST', '/v2.1/orders', 422, 10],
  ['POST', '/v2.1/orders', 200, 11.5],
  ['GET', '/v2.1/esims/:iccid', 200, 1e-7],
  ['HEAD', '/v2.1/esims/:iccid', 200, 2.4999],
  ['GET', '/v2.1/organisation', 200, 0.3],
];

function reference(): Registry {
  const registry = new Registry();
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'esim_http_requests_total',
    help: 'HTTP requests answered by this instance, by method, route template and status.',
    labelNames,
    registers: [registry],
  });
  const seconds = new Histogram({
    name: 'esim_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route template and status.',
    labelNames,
    buckets: BUCKETS,
    registers: [registry],
  });
  for (const [method, route, status, s] of RESPONSES) {
    const labels = { method, route, status: String(status) };
    requests.inc(labels);
    seconds.observe(labels, s);
  }
  return registry;
}

describe('request metrics', () => {
  it('expose exactly what prom-client exposes for the same responses', async () => {
    const registry = new Registry();
    const metrics = createRequestMetrics(registry, BUCKETS);
    for (const [method, route, status, s] of RESPONSES) metrics.observe(method, route, status, s);
    const expected = await reference().metrics();
    assert.match(expected, /le="\+Inf",method="POST",route="\/v2\.1\/orders",status="200"} 2/);
    assert.equal(await registry.metrics(), expected);
    // A scrape changes nothing: the next one, after more responses, counts them once.
    metrics.observe('GET', '/v2.1/organisation', 200, 0.02);
    const again = (await registry.metrics()).split('\n');
    assert.ok(
      again.includes(
        'esim_http_requests_total{method="GET",route="/v2.1/organisation",status="200"} 3',
      ),
    );
    assert.ok(
      again.includes(
        'esim_http_request_duration_seconds_bucket{le="0.025",method="GET",route="/v2.1/organisation",status="200"} 2',
      ),
    );
  });

  it('give the JSON form prom-client gives', async () => {
    const registry = new Registry();
    const metrics = createRequestMetrics(registry, BUCKETS);
    for (const [method, route, status, s] of RESPONSES) metrics.observe(method, route, status, s);
    assert.deepEqual(await registry.getMetricsAsJSON(), await reference().getMetricsAsJSON());
  });

  it('expose no series before the first response', async () => {
    const registry = new Registry();
    createRequestMetrics(registry, BUCKETS);
    assert.doesNotMatch(await registry.metrics(), /\{/);
    assert.match(
      await registry.metrics(),
      /^# TYPE esim_http_request_duration_seconds histogram$/m,
    );
  });
});
