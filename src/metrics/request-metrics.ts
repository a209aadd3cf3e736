import { Counter, Histogram } from 'prom-client';
import type { MetricValueWithName, Registry } from 'prom-client';

// The two per-request metrics, esim_http_requests_total and esim_http_request_duration_seconds,
// by method, route template and status. Every response observes both, so they are tallied in a
// table of plain numbers found by the route, method and status as they come (no label object,
// hash string or validation per request, as prom-client's own observe builds), and handed to
// prom-client only when /metrics is scraped: the exposition is prom-client's, with the same names,
// labels, series order and values as if each response had been observed by it directly.

type Label = 'method' | 'route' | 'status';
type Labels = Readonly<Record<Label, string>>;

interface Series {
  readonly labels: Labels;
  count: number;
  sum: number;
  /** Observations per bucket: index i for upper bound i (not cumulative); none above the last. */
  readonly buckets: number[];
}

/** Route template → method → status → its series, in the order they were first seen. */
type Table = Map<string, Map<string, Map<number, Series>>>;

export interface RequestMetrics {
  observe(method: string, route: string, status: number, seconds: number): void;
}

/** A value of prom-client's text exposition: a histogram line's own labels plus the series'. */
interface ExpositionValue extends MetricValueWithName<string> {
  readonly sharedLabels: Labels;
  /** None: exemplars are off (prom-client's null on a bucket, undefined on the sum and count). */
  readonly exemplar: null | undefined;
}

/** What prom-client's registry reads to format a histogram (its own `getForPromString`). */
interface Exposition {
  readonly name: string;
  readonly help: string;
  readonly type: 'histogram';
  readonly values: ExpositionValue[];
  readonly aggregator: 'sum';
}

type HistogramOptions = ConstructorParameters<typeof Histogram<Label>>[0];

/**
 * The duration histogram: prom-client's Histogram, with its values read from the table. The
 * registry formats what `getForPromString` returns, the series' labels kept apart from `le` as
 * prom-client keeps them; prom-client's `get` (the JSON form) merges them from the same values.
 */
class TabledHistogram extends Histogram<Label> {
  private readonly options: HistogramOptions;

  constructor(
    options: HistogramOptions,
    private readonly series: () => Iterable<Series>,
    private readonly bounds: readonly number[],
  ) {
    super(options);
    this.options = options;
  }

  getForPromString(): Promise<Exposition> {
    const { name, help } = this.options;
    const values: ExpositionValue[] = [];
    const bucket = `${name}_bucket`;
    for (const s of this.series()) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += s.buckets[i] ?? 0;
        values.push({
          labels: { le },
          sharedLabels: s.labels,
          value: cumulative,
          metricName: bucket,
          exemplar: null,
        });
      });
      values.push(
        {
          labels: { le: '+Inf' },
          sharedLabels: s.labels,
          value: s.count,
          metricName: bucket,
          exemplar: null,
        },
        {
          labels: {},
          sharedLabels: s.labels,
          value: s.sum,
          metricName: `${name}_sum`,
          exemplar: undefined,
        },
        {
          labels: {},
          sharedLabels: s.labels,
          value: s.count,
          metricName: `${name}_count`,
          exemplar: undefined,
        },
      );
    }
    return Promise.resolve({ name, help, type: 'histogram', values, aggregator: 'sum' });
  }
}

export function createRequestMetrics(
  registry: Registry,
  buckets: readonly number[],
): RequestMetrics {
  const table: Table = new Map();
  // Every series in the order first observed: the order prom-client lists them in.
  const ordered: Series[] = [];
  const allSeries = (): Iterable<Series> => ordered;
  const labelNames = ['method', 'route', 'status'] as const;
  const bounds = [...buckets].sort((a, b) => a - b);
  new Counter({
    name: 'esim_http_requests_total',
    help: 'HTTP requests answered by this instance, by method, route template and status.',
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const s of allSeries()) this.inc(s.labels, s.count);
    },
  });
  new TabledHistogram(
    {
      name: 'esim_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by method, route template and status.',
      labelNames,
      buckets: bounds,
      registers: [registry],
    },
    allSeries,
    bounds,
  );

  const add = (method: string, route: string, status: number): Series => {
    let methods = table.get(route);
    if (methods === undefined) table.set(route, (methods = new Map()));
    let statuses = methods.get(method);
    if (statuses === undefined) methods.set(method, (statuses = new Map()));
    const s: Series = {
      labels: { method, route, status: String(status) },
      count: 0,
      sum: 0,
      buckets: bounds.map(() => 0),
    };
    statuses.set(status, s);
    ordered.push(s);
    return s;
  };
  return {
    observe(method, route, status, seconds) {
      const s = table.get(route)?.get(method)?.get(status) ?? add(method, route, status);
      s.count += 1;
      s.sum += seconds;
      // The first bound the value does not exceed, as prom-client buckets it; above them all,
      // only +Inf (the count) holds it.
      for (let i = 0; i < bounds.length; i += 1) {
        if (seconds <= (bounds[i] ?? Infinity)) {
          s.buckets[i] = (s.buckets[i] ?? 0) + 1;
          break;
        }
      }
    },
  };
}
