import { Counter } from 'prom-client';
import type { Registry } from 'prom-client';
import { TabledHistogram, addObservation, newSeries } from './tabled-histogram.js';
import type { Series } from './tabled-histogram.js';

// The two per-request metrics, esim_http_requests_total and esim_http_request_duration_seconds,
// by method, route template and status. Every response observes both, so they are tallied in a
// table of plain numbers found by the route, method and status as they come (no label object,
// hash string or validation per request, as prom-client's own observe builds), and handed to
// prom-client only when /metrics is scraped: the exposition is prom-client's, with the same names,
// labels, series order and values as if each response had been observed by it directly.

type Label = 'method' | 'route' | 'status';

/** Route template → method → status → its series, in the order they were first seen. */
type Table = Map<string, Map<string, Map<number, Series<Label>>>>;

export interface RequestMetrics {
  observe(method: string, route: string, status: number, seconds: number): void;
}

export function createRequestMetrics(
  registry: Registry,
  buckets: readonly number[],
): RequestMetrics {
  const table: Table = new Map();
  // Every series in the order first observed: the order prom-client lists them in.
  const ordered: Series<Label>[] = [];
  const allSeries = (): Iterable<Series<Label>> => ordered;
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

  const add = (method: string, route: string, status: number): Series<Label> => {
    let methods = table.get(route);
    if (methods === undefined) table.set(route, (methods = new Map()));
    let statuses = methods.get(method);
    if (statuses === undefined) methods.set(method, (statuses = new Map()));
    const s = newSeries({ method, route, status: String(status) }, bounds);
    statuses.set(status, s);
    ordered.push(s);
    return s;
  };
  return {
    observe(method, route, status, seconds) {
      const s = table.get(route)?.get(method)?.get(status) ?? add(method, route, status);
      addObservation(s, bounds, seconds);
    },
  };
}
