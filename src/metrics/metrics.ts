import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Clock } from '../clock.js';
import { systemWallClock } from '../clock.js';
import type { Store } from '../store/database.js';
import type { RedisObserver } from '../rate-limits/redis-guard.js';
import type { GroupCommitObserver } from '../store/group-commit.js';
import type {
  BusinessFigures,
  MoneyTotal,
  OrderTotal,
  TallyMarks,
} from '../store/repositories/metrics-repository.js';
import { readBusinessFigures, readTally } from '../store/repositories/metrics-repository.js';
import { createRequestMetrics } from './request-metrics.js';
import { TabledHistogram, addObservation, newSeries } from './tabled-histogram.js';
import type { Series } from './tabled-histogram.js';

interface Figures extends BusinessFigures {
  readonly orders: readonly OrderTotal[];
  readonly money: readonly MoneyTotal[];
}

// Prometheus metrics (prom-client), one registry per app, no global state. Two kinds:
// - this instance's own: HTTP requests, callback attempts, database queries, the pool, the
//   process; counted as they happen;
// - the deployment's: orders, money moved, top-ups, eSIMs, the callback queue, worker lag; read
//   from the database at scrape time, so every instance reports the same values (aggregate them
//   with max, not sum). Every metric is listed in docs/operations.md.

export type CallbackOutcome = 'delivered' | 'rejected' | 'error';

export interface Metrics {
  readonly contentType: string;
  /** The exposition text of every metric. */
  render(): Promise<string>;
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  observeCallbackAttempt(outcome: CallbackOutcome, seconds: number): void;
  observeQuery(seconds: number): void;
  /** What the store's group writer reports (store/group-commit.ts). */
  readonly groupCommit: GroupCommitObserver;
  /** What the Redis deadline and circuit breaker report (rate-limits/redis-guard.ts). */
  readonly redis: RedisObserver;
  /**
   * Adds prom-client's process metrics (CPU, memory, event loop, GC). Once per process: the
   * server does it; apps built in tests and CLI commands leave them out, since their monitors
   * are never stopped.
   */
  includeProcessMetrics(): void;
}

export interface MetricsSources {
  readonly store: Store;
  /** Domain time: due times and ages are measured on the clock that set them. */
  readonly clock: Clock;
  /** Real time, which the one-second figure cache is kept on (the system's by default). */
  readonly wallClock?: Clock;
}

/** Database figures are read at most this often, however many scrapes arrive. */
const FIGURES_TTL_MS = 1000;

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const QUERY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000];

export function createMetrics(sources: MetricsSources): Metrics {
  const registry = new Registry();
  let processMetrics = false;
  const registers = [registry];

  const requests = createRequestMetrics(registry, LATENCY_BUCKETS);
  const attempts = new Counter({
    name: 'esim_callback_attempts_total',
    help: 'Usage callback delivery attempts by this instance, by outcome (delivered: 2xx; rejected: another status; error: no answer).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const attemptSeconds = new Histogram({
    name: 'esim_callback_attempt_duration_seconds',
    help: 'Time a usage callback delivery attempt took, by outcome.',
    labelNames: ['outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  // Every statement is timed, several per order: tallied in plain numbers and handed to
  // prom-client at scrape time (tabled-histogram.ts). One series, made at the first statement.
  const queryBounds = [...QUERY_BUCKETS].sort((a, b) => a - b);
  let querySeries: Series<'dialect'> | undefined;
  new TabledHistogram(
    {
      name: 'esim_db_query_duration_seconds',
      help: 'Time database statements of this instance took.',
      labelNames: ['dialect'] as const,
      buckets: queryBounds,
      registers,
    },
    () => (querySeries === undefined ? [] : [querySeries]),
    queryBounds,
  );
  const batches = new Counter({
    name: 'esim_group_commit_batches_total',
    help: 'Group-commit batch transactions of this instance, by outcome (committed; failed: rolled back because a write threw, or its begin or commit failed).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const batchWrites = new Histogram({
    name: 'esim_group_commit_batch_writes',
    help: 'Writes (orders) carried by each group-commit batch transaction of this instance.',
    buckets: BATCH_BUCKETS,
    registers,
  });
  const reruns = new Counter({
    name: 'esim_group_commit_reruns_total',
    help: 'Group-commit batches run again after a failure, by mode (savepoints: the batch again with a savepoint around each write after one threw; alone: one write in its own transaction, after its batch transaction failed or it lost a deadlock).',
    labelNames: ['mode'] as const,
    registers,
  });
  const queueSeconds = new Histogram({
    name: 'esim_group_commit_queue_wait_seconds',
    help: 'Time a write waited in this instance’s group-commit queue before its batch began.',
    buckets: QUERY_BUCKETS,
    registers,
  });
  const redisFallbacks = new Counter({
    name: 'esim_redis_fallbacks_total',
    help: 'Rate-limit calls this instance answered from its in-process counters instead of Redis, by reason (timeout: no answer within REDIS_TIMEOUT_MS; error: Redis refused or failed; open: the circuit breaker kept the call away from Redis).',
    labelNames: ['reason'] as const,
    registers,
  });
  const redisBreakerOpen = new Gauge({
    name: 'esim_redis_breaker_open',
    help: '1 while this instance keeps its rate-limit calls away from Redis (circuit breaker open), else 0.',
    registers,
  });
  for (const reason of ['timeout', 'error', 'open'] as const) redisFallbacks.inc({ reason }, 0);
  redisBreakerOpen.set(0);
  for (const outcome of ['committed', 'failed'] as const) batches.inc({ outcome }, 0);
  for (const mode of ['savepoints', 'alone'] as const) reruns.inc({ mode }, 0);
  const { store, clock, wallClock = systemWallClock } = sources;
  new Gauge({
    name: 'esim_db_pool_connections',
    help: 'Connections of this instance’s PostgreSQL pool, by state (total, idle, waiting: requests queued for a connection).',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const stats = store.poolStats?.();
      if (stats === undefined) return;
      this.set({ state: 'total' }, stats.total);
      this.set({ state: 'idle' }, stats.idle);
      this.set({ state: 'waiting' }, stats.waiting);
    },
  });

  // Running totals of orders and money, topped up with the rows added since the last scrape
  // (readTally). Updates run one after another, so no row is added twice.
  let tally:
    | { marks: TallyMarks; orders: Map<string, OrderTotal>; money: Map<string, MoneyTotal> }
    | undefined;
  let tallying: Promise<unknown> = Promise.resolve();
  const updateTally = async () => {
    const read = await readTally(store.db, store.dialect, tally?.marks);
    const current =
      tally === undefined || read.fresh
        ? {
            marks: read.marks,
            orders: new Map<string, OrderTotal>(),
            money: new Map<string, MoneyTotal>(),
          }
        : tally;
    for (const o of read.orders) {
      const key = `${o.status} ${o.currency}`;
      const was = current.orders.get(key);
      current.orders.set(key, {
        ...o,
        count: o.count + (was?.count ?? 0),
        total: o.total + (was?.total ?? 0),
      });
    }
    for (const m of read.money) {
      const key = `${m.kind} ${m.currency}`;
      const was = current.money.get(key);
      current.money.set(key, {
        ...m,
        balance: m.balance + (was?.balance ?? 0),
        testCredit: m.testCredit + (was?.testCredit ?? 0),
      });
    }
    current.marks = read.marks;
    tally = current;
    return { orders: [...current.orders.values()], money: [...current.money.values()] };
  };
  const readFigures = async (): Promise<Figures> => {
    const totals = tallying.then(updateTally, updateTally);
    tallying = totals.catch(() => undefined);
    const [business, { orders, money }] = await Promise.all([
      readBusinessFigures(store.db, store.dialect, clock.now().toISOString()),
      totals,
    ]);
    return { ...business, orders, money };
  };

  let cached: { at: number; figures: Promise<Figures> } | undefined;
  const figures = (): Promise<Figures> => {
    const now = wallClock.now().getTime();
    if (cached === undefined || now - cached.at >= FIGURES_TTL_MS) {
      const pending = readFigures();
      // A failed read is not kept: the next scrape tries again.
      pending.catch(() => {
        if (cached?.figures === pending) cached = undefined;
      });
      cached = { at: now, figures: pending };
    }
    return cached.figures;
  };
  const ageSeconds = (since: string | null): number =>
    since === null ? 0 : Math.max(0, (clock.now().getTime() - Date.parse(since)) / 1000);

  new Counter({
    name: 'esim_orders_total',
    help: 'Orders stored, by status (completed, validated) and currency; the whole deployment.',
    labelNames: ['status', 'currency'] as const,
    registers,
    async collect() {
      const f = await figures();
      this.reset();
      for (const o of f.orders) this.inc({ status: o.status, currency: o.currency }, o.count);
    },
  });
  new Counter({
    name: 'esim_order_value_minor_total',
    help: 'Sum of order totals in minor units, by status and currency; the whole deployment.',
    labelNames: ['status', 'currency'] as const,
    registers,
    async collect() {
      const f = await figures();
      this.reset();
      for (const o of f.orders) this.inc({ status: o.status, currency: o.currency }, o.total);
    },
  });
  new Counter({
    name: 'esim_money_moved_minor_total',
    help: 'Money moved through the ledger in minor units, by movement type, funds (balance, test_credit) and currency; the whole deployment.',
    labelNames: ['type', 'funds', 'currency'] as const,
    registers,
    async collect() {
      const f = await figures();
      this.reset();
      for (const m of f.money) {
        this.inc({ type: m.kind, funds: 'balance', currency: m.currency }, m.balance);
        this.inc({ type: m.kind, funds: 'test_credit', currency: m.currency }, m.testCredit);
      }
    },
  });
  new Gauge({
    name: 'esim_topups',
    help: 'Balance top-ups by outcome (succeeded, declined, failed; pending and unknown while in doubt); the whole deployment.',
    labelNames: ['outcome'] as const,
    registers,
    async collect() {
      const f = await figures();
      this.reset();
      for (const t of f.topUps) this.set({ outcome: t.status }, t.count);
    },
  });
  new Gauge({
    name: 'esim_esims',
    help: 'eSIMs in organisations’ lists by profile status (Released, Downloaded, Installed, Unavailable); a deleted eSIM leaves it; the whole deployment.',
    labelNames: ['profile_status'] as const,
    registers,
    async collect() {
      const f = await figures();
      this.reset();
      for (const e of f.esims) this.set({ profile_status: e.profileStatus }, e.count);
    },
  });
  new Gauge({
    name: 'esim_bundle_assignments',
    help: 'Bundle assignments by state (Processing, Queued, Active, Depleted, Expired, Revoked); the whole deployment.',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      const f = await figures();
      this.reset();
      for (const a of f.assignments) this.set({ state: a.state }, a.count);
    },
  });
  new Gauge({
    name: 'esim_callback_queue_depth',
    help: 'Usage callback events not yet delivered or given up, by status (pending, delivering); the whole deployment.',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      const f = await figures();
      this.set({ status: 'pending' }, 0);
      this.set({ status: 'delivering' }, 0);
      for (const q of f.callbackQueue) this.set({ status: q.status }, q.count);
    },
  });
  new Gauge({
    name: 'esim_callback_oldest_pending_age_seconds',
    help: 'Age of the oldest usage callback event not yet delivered or given up (0 when none).',
    registers,
    async collect() {
      const f = await figures();
      let oldest: string | null = null;
      for (const q of f.callbackQueue) {
        if (q.oldest !== null && (oldest === null || q.oldest < oldest)) oldest = q.oldest;
      }
      this.set(ageSeconds(oldest));
    },
  });
  new Gauge({
    name: 'esim_callback_endpoints_paused',
    help: 'Organisations whose callback endpoint is paused after CALLBACK_PAUSE_AFTER unanswered attempts in a row; nothing is sent to them until resumed.',
    registers,
    async collect() {
      const f = await figures();
      this.set(f.pausedEndpoints);
    },
  });
  new Gauge({
    name: 'esim_worker_lag_seconds',
    help: 'How far behind each background worker is: the age of its oldest work item that is due and not done (0 when none).',
    labelNames: ['worker'] as const,
    registers,
    async collect() {
      const f = await figures();
      for (const [worker, due] of Object.entries(f.oldestDue))
        this.set({ worker }, ageSeconds(due));
    },
  });

  return {
    contentType: registry.contentType,
    render: () => registry.metrics(),
    observeRequest(method, route, status, seconds) {
      requests.observe(method, route, status, seconds);
    },
    observeCallbackAttempt(outcome, seconds) {
      attempts.inc({ outcome });
      attemptSeconds.observe({ outcome }, seconds);
    },
    groupCommit: {
      batch(outcome, writes) {
        batches.inc({ outcome });
        batchWrites.observe(writes);
      },
      queued: (seconds) => queueSeconds.observe(seconds),
      rerun: (mode) => reruns.inc({ mode }),
    },
    redis: {
      fallback: (reason) => redisFallbacks.inc({ reason }),
      breaker: (open) => redisBreakerOpen.set(open ? 1 : 0),
    },
    observeQuery(seconds) {
      querySeries ??= newSeries({ dialect: store.dialect }, queryBounds);
      addObservation(querySeries, queryBounds, seconds);
    },
    includeProcessMetrics() {
      if (processMetrics) return;
      processMetrics = true;
      collectDefaultMetrics({ register: registry });
    },
  };
}
