import { Histogram } from 'prom-client';
import type { MetricValueWithName } from 'prom-client';

// A histogram whose observations are tallied in plain numbers by its callers (a series per set
// of label values, found without building a label object, a hash string or validating it, as
// prom-client's own observe does every time), and handed to prom-client only when /metrics is
// scraped: the exposition is prom-client's, with the same names, labels, series order and values
// as if each observation had been made through it.

/** One set of label values: its count, its sum and its observations per bucket. */
export interface Series<L extends string> {
  readonly labels: Readonly<Record<L, string>>;
  count: number;
  sum: number;
  /** Observations per bucket: index i for upper bound i (not cumulative); none above the last. */
  readonly buckets: number[];
}

/** A new series of `labels`, empty, for buckets with these upper bounds. */
export function newSeries<L extends string>(
  labels: Readonly<Record<L, string>>,
  bounds: readonly number[],
): Series<L> {
  return { labels, count: 0, sum: 0, buckets: bounds.map(() => 0) };
}

/** Counts one observation into its series, bucketed as prom-client buckets it. */
export function addObservation<L extends string>(
  series: Series<L>,
  bounds: readonly number[],
  value: number,
): void {
  series.count += 1;
  series.sum += value;
  // The first bound the value does not exceed; above them all, only +Inf (the count) holds it.
  for (let i = 0; i < bounds.length; i += 1) {
    if (value <= (bounds[i] ?? Infinity)) {
      series.buckets[i] = (series.buckets[i] ?? 0) + 1;
      break;
    }
  }
}

/** A value of prom-client's text exposition: a histogram line's own labels plus the series'. */
interface ExpositionValue<L extends string> extends MetricValueWithName<string> {
  readonly sharedLabels: Readonly<Record<L, string>>;
  /** None: exemplars are off (prom-client's null on a bucket, undefined on the sum and count). */
  readonly exemplar: null | undefined;
}

/** What prom-client's registry reads to format a histogram (its own `getForPromString`). */
interface Exposition<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly type: 'histogram';
  readonly values: ExpositionValue<L>[];
  readonly aggregator: 'sum';
}

type HistogramOptions<L extends string> = ConstructorParameters<typeof Histogram<L>>[0];

/**
 * prom-client's Histogram, with its values read from the series. The registry formats what
 * `getForPromString` returns, the series' labels kept apart from `le` as prom-client keeps them;
 * prom-client's `get` (the JSON form) merges them from the same values.
 */
export class TabledHistogram<L extends string> extends Histogram<L> {
  private readonly options: HistogramOptions<L>;

  constructor(
    options: HistogramOptions<L>,
    private readonly series: () => Iterable<Series<L>>,
    private readonly bounds: readonly number[],
  ) {
    super(options);
    this.options = options;
  }

  getForPromString(): Promise<Exposition<L>> {
    const { name, help } = this.options;
    const values: ExpositionValue<L>[] = [];
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
