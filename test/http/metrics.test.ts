import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { startMetricsServer } from '../../src/http/metrics-server.js';
import { saveCard } from '../../src/domain/money/save-card.js';
import { oneEvent, workerFor } from '../callbacks/fixtures.js';
import { addBundles, fixtureBundle } from '../fixtures/orders.js';
import { DATABASES, eventually, startTestApp } from '../harness.js';
import type { TestApp } from '../harness.js';
import type { Exposition } from '../prometheus-text.js';
import { parseExposition } from '../prometheus-text.js';
import type { Receiver } from '../receiver.js';
import { startReceiver } from '../receiver.js';

// /metrics over real HTTP: the exposition parses as Prometheus text, every documented family is
// there, and the counters move with the traffic sent. Then where /metrics is served: open in
// simulator mode, behind a token, on its own port, and never unprotected in production.

const FAMILIES = [
  'esim_http_requests_total',
  'esim_http_request_duration_seconds',
  'esim_orders_total',
  'esim_order_value_minor_total',
  'esim_money_moved_minor_total',
  'esim_topups',
  'esim_esims',
  'esim_bundle_assignments',
  'esim_callback_attempts_total',
  'esim_callback_attempt_duration_seconds',
  'esim_callback_queue_depth',
  'esim_callback_oldest_pending_age_seconds',
  'esim_callback_endpoints_paused',
  'esim_worker_lag_seconds',
  'esim_db_query_duration_seconds',
  'esim_db_pool_connections',
  'esim_group_commit_batches_total',
  'esim_group_commit_batch_writes',
  'esim_group_commit_reruns_total',
  'esim_group_commit_queue_wait_seconds',
  'esim_redis_fallbacks_total',
  'esim_redis_breaker_open',
  'process_cpu_seconds_total',
  'process_resident_memory_bytes',
  'nodejs_eventloop_lag_seconds',
];

for (const kind of DATABASES) {
  describe(`GET /metrics [${kind}]`, () => {
    let t: TestApp;
    let base: string;
    let receiver: Receiver;

    before(async () => {
      t = await startTestApp(kind);
      t.deps.metrics?.includeProcessMetrics(); // as the server does (src/main.ts)
      base = await t.app.listen({ port: 0, host: '127.0.0.1' });
      receiver = await startReceiver();
    });
    after(async () => {
      await receiver.close();
      await t.close();
    });

    const scrape = async (): Promise<Exposition> => {
      const res = await fetch(`${base}/metrics`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      return parseExposition(await res.text());
    };
    const call = async (path: string, apiKey: string, method = 'GET', body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          'x-api-key': apiKey,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      await res.arrayBuffer();
      return res.status;
    };

    it('parses as Prometheus text and lists every documented family with help', async () => {
      const m = await scrape();
      for (const name of FAMILIES) {
        if (name === 'esim_db_pool_connections' && kind === 'sqlite') continue;
        assert.ok(m.types.has(name), `${name} is exposed`);
        assert.ok((m.help.get(name) ?? '') !== '', `${name} has help`);
      }
      assert.equal(m.types.get('esim_http_request_duration_seconds'), 'histogram');
      assert.equal(m.types.get('esim_orders_total'), 'counter');
      assert.equal(m.types.get('esim_callback_queue_depth'), 'gauge');
    });

    it('moves its counters with the traffic sent', async () => {
      await addBundles(t, [fixtureBundle('esim_metrics_1GB_7D_GB_V2', 1234)]);
      const org = await t.createOrg({
        balance: 100_000,
        callbackUrl: `${receiver.url}/metrics`,
        callbackVersion: 'V2',
      });
      await saveCard(t.deps, org.id, { number: '4242424242424242', expMonth: 12, expYear: 2099 });
      const before = await scrape();
      const route = (r: string, status: string) => ({ method: 'GET', route: r, status });

      for (let i = 0; i < 3; i += 1)
        assert.equal(await call('/v2.1/organisation', org.apiKey), 200);
      assert.equal(await call('/v2.1/organisation', 'esim_not_a_key'), 403);
      assert.equal(
        await call('/v2.1/orders', org.apiKey, 'POST', {
          type: 'transaction',
          assign: true,
          order: [{ type: 'bundle', item: 'esim_metrics_1GB_7D_GB_V2', quantity: 2 }],
        }),
        200,
      );
      assert.equal(await call('/v2.1/organisation/balance?amount=1000', org.apiKey, 'POST'), 200);
      await oneEvent(t, org.id);

      const queued = await eventually(
        async () => {
          const m = await scrape();
          return m.value('esim_callback_queue_depth', { status: 'pending' }) >=
            before.value('esim_callback_queue_depth', { status: 'pending' }) + 1
            ? m
            : undefined;
        },
        5000,
        'the event in the queue',
      );
      assert.ok(queued.value('esim_callback_oldest_pending_age_seconds') >= 0);
      // The event waits while the clock moves: the queue ages and the delivery worker lags.
      t.clock.advance(300);
      const lagging = await eventually(
        async () => {
          const m = await scrape();
          return m.value('esim_worker_lag_seconds', { worker: 'callback-delivery' }) >= 300
            ? m
            : undefined;
        },
        5000,
        'worker lag',
      );
      assert.ok(lagging.value('esim_callback_oldest_pending_age_seconds') >= 300);

      const worker = workerFor(t, { metrics: t.deps.metrics });
      await worker.drain();
      assert.equal(receiver.at('/metrics').length, 1);

      const m = await eventually(
        async () => {
          const now = await scrape();
          return now.value('esim_callback_queue_depth', { status: 'pending' }) ===
            before.value('esim_callback_queue_depth', { status: 'pending' })
            ? now
            : undefined;
        },
        5000,
        'the queue drained',
      );
      const delta = (name: string, labels: Record<string, string> = {}) =>
        m.value(name, labels) - before.value(name, labels);
      assert.equal(delta('esim_http_requests_total', route('/v2.1/organisation', '200')), 3);
      assert.equal(delta('esim_http_requests_total', route('/v2.1/organisation', '403')), 1);
      assert.equal(
        delta('esim_http_request_duration_seconds_count', route('/v2.1/organisation', '200')),
        3,
      );
      assert.equal(
        delta('esim_http_requests_total', {
          method: 'POST',
          route: '/v2.1/orders',
          status: '200',
        }),
        1,
      );
      assert.equal(delta('esim_orders_total', { status: 'completed', currency: 'USD' }), 1);
      assert.equal(
        delta('esim_order_value_minor_total', { status: 'completed', currency: 'USD' }),
        2468,
      );
      assert.equal(
        delta('esim_money_moved_minor_total', { type: 'order', funds: 'balance', currency: 'USD' }),
        2468,
      );
      assert.equal(
        delta('esim_money_moved_minor_total', { type: 'topup', funds: 'balance', currency: 'USD' }),
        1000,
      );
      assert.equal(delta('esim_topups', { outcome: 'succeeded' }), 1);
      assert.equal(delta('esim_esims', { profile_status: 'Released' }), 2);
      const assignments = m.samples
        .filter((s) => s.name === 'esim_bundle_assignments')
        .reduce((sum, s) => sum + s.value, 0);
      const assignmentsBefore = before.samples
        .filter((s) => s.name === 'esim_bundle_assignments')
        .reduce((sum, s) => sum + s.value, 0);
      assert.equal(assignments - assignmentsBefore, 2);
      assert.equal(delta('esim_callback_attempts_total', { outcome: 'delivered' }), 1);
      assert.equal(
        delta('esim_callback_attempt_duration_seconds_count', { outcome: 'delivered' }),
        1,
      );
      assert.equal(m.value('esim_worker_lag_seconds', { worker: 'callback-delivery' }), 0);
      assert.ok(delta('esim_db_query_duration_seconds_count', { dialect: kind }) > 5);
      // A histogram as prom-client writes one: cumulative buckets ending in +Inf at the count.
      const query = (suffix: string, labels: Record<string, string> = {}) =>
        m.value(`esim_db_query_duration_seconds${suffix}`, { dialect: kind, ...labels });
      assert.equal(query('_bucket', { le: '+Inf' }), query('_count'));
      assert.ok(query('_bucket', { le: '0.0005' }) <= query('_bucket', { le: '1' }));
      assert.ok(query('_bucket', { le: '1' }) <= query('_count'));
      assert.ok(query('_sum') > 0);
    });

    it('counts group-commit batches, their writes, re-runs and queue waits', async () => {
      await addBundles(t, [fixtureBundle('esim_metrics_batch_unit', 100)]);
      const org = await t.createOrg({ balance: 30 * 100 });
      const before = await scrape();
      const order = {
        type: 'transaction',
        assign: false,
        order: [{ type: 'bundle', item: 'esim_metrics_batch_unit', quantity: 1 }],
      };
      // 40 orders at once against funds for 30: the batches that meet a refused order run again
      // with savepoints.
      const statuses = await Promise.all(
        Array.from({ length: 40 }, async () => {
          const res = await t.request(org.apiKey, {
            method: 'POST',
            url: '/v2.1/orders',
            payload: order,
          });
          return res.statusCode;
        }),
      );
      assert.equal(statuses.filter((s) => s === 200).length, 30);
      assert.equal(statuses.filter((s) => s === 400).length, 10);
      const m = await scrape();
      const moved = (name: string, labels?: Record<string, string>) =>
        m.value(name, labels) - before.value(name, labels);
      assert.equal(m.types.get('esim_group_commit_batch_writes'), 'histogram');
      const committed = moved('esim_group_commit_batches_total', { outcome: 'committed' });
      assert.ok(committed >= 1, `committed batches: ${committed}`);
      // Every order was carried by a batch that committed or failed; re-runs carry them again.
      const writes = moved('esim_group_commit_batch_writes_sum');
      assert.ok(writes >= 40, `writes in batches: ${writes}`);
      const batches = moved('esim_group_commit_batch_writes_count');
      assert.equal(
        batches,
        committed + moved('esim_group_commit_batches_total', { outcome: 'failed' }),
      );
      // Orders that arrive together share a batch.
      assert.ok(writes > batches, `${writes} writes in ${batches} batches`);
      assert.ok(moved('esim_group_commit_reruns_total', { mode: 'savepoints' }) >= 1);
      // Each of the 40 orders waited in the queue; one the writer ran alone and had to attempt
      // again (use-case-runner.ts, AttemptAgain: a busy database on a loaded machine) waits twice.
      assert.ok(moved('esim_group_commit_queue_wait_seconds_count') >= 40);
      // Every statement of the batches is timed, also those SQLite runs on the driver directly:
      // there, each of the 40 orders checks and debits its balance, and each placed one inserts
      // its order, line, inventory and journal entry, before any re-run (PostgreSQL inserts each
      // kind of row once per batch).
      const statements = moved('esim_db_query_duration_seconds_count', { dialect: kind });
      assert.ok(statements >= (kind === 'sqlite' ? 40 + 30 * 5 : 30), `statements: ${statements}`);
    });

    it('labels unknown paths as one route, so stray URLs cannot grow the label set', async () => {
      const res = await fetch(`${base}/no/such/path/${Date.now()}`);
      assert.equal(res.status, 404);
      await res.arrayBuffer();
      const m = await scrape();
      assert.ok(
        m.value('esim_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }) >=
          1,
      );
      assert.ok(!m.samples.some((s) => (s.labels['route'] ?? '').startsWith('/no/such')));
    });
  });
}

describe('where /metrics is served', () => {
  it('behind a bearer token when METRICS_TOKEN is set', async () => {
    const t = await startTestApp('sqlite', { metricsToken: 'scrape-me' });
    try {
      const none = await t.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(none.statusCode, 401);
      assert.match(none.json().message, /Bearer/);
      // A 401 names its scheme (RFC 9110), so a scraper or a person with curl learns what to send.
      assert.equal(none.headers['www-authenticate'], 'Bearer realm="metrics"');
      const wrong = await t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: 'Bearer nope' },
      });
      assert.equal(wrong.statusCode, 401);
      assert.equal(wrong.headers['www-authenticate'], 'Bearer realm="metrics"');
      const right = await t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: 'Bearer scrape-me' },
      });
      assert.equal(right.statusCode, 200);
      parseExposition(right.body);
    } finally {
      await t.close();
    }
  });

  it('in production: not on the public port without a token; on METRICS_PORT when set', async () => {
    const t = await startTestApp('sqlite', { mode: 'production' });
    try {
      assert.equal((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404);
      const config = { ...t.config, metricsPort: 0, metricsHost: '127.0.0.1' };
      const separate = await buildApp({ ...t.deps, config }, { logLevel: 'silent' });
      const server = await startMetricsServer(config, t.deps.metrics ?? assert.fail('metrics'));
      try {
        assert.equal((await separate.inject({ method: 'GET', url: '/metrics' })).statusCode, 404);
        const res = await fetch(`${server.url}/metrics`);
        assert.equal(res.status, 200);
        const m = parseExposition(await res.text());
        assert.ok(m.types.has('esim_http_requests_total'));
        const other = await fetch(`${server.url}/v2.1/organisation`);
        assert.equal(other.status, 404, 'the metrics port serves nothing else');
        await other.arrayBuffer();
      } finally {
        await server.close();
        await separate.close();
      }
    } finally {
      await t.close();
    }
  });
});
