// A strict reader of the Prometheus text exposition format (version 0.0.4), for tests: every
// line must be a HELP or TYPE comment or a sample of a declared family, or it throws.

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Exposition {
  readonly types: ReadonlyMap<string, string>;
  readonly help: ReadonlyMap<string, string>;
  readonly samples: readonly Sample[];
  /** The value of the one sample with this name and exactly these labels (0 when absent). */
  value(name: string, labels?: Record<string, string>): number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES: Record<string, readonly string[]> = {
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['_sum', '_count', ''],
};

// Prometheus reads values with Go's ParseFloat, which takes NaN and Inf in any letter case.
function parseValue(raw: string): number {
  const lower = raw.toLowerCase();
  if (lower === '+inf' || lower === 'inf') return Infinity;
  if (lower === '-inf') return -Infinity;
  if (lower === 'nan') return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw)) throw new Error(`bad value "${raw}"`);
  return Number(raw);
}

function parseLabels(raw: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < raw.length) {
    const match = LABEL.exec(raw);
    if (match === null) throw new Error(`bad labels "${raw}"`);
    const [, name = '', value = ''] = match;
    if (name in labels) throw new Error(`label ${name} repeated`);
    labels[name] = value.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}

function family(name: string, types: ReadonlyMap<string, string>): string | undefined {
  if (types.has(name)) return name;
  for (const [base, type] of types) {
    for (const suffix of SUFFIXES[type] ?? []) if (name === base + suffix) return base;
  }
  return undefined;
}

export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  const samples: Sample[] = [];
  const lines = text.split('\n');
  if (lines.at(-1) !== '') throw new Error('the exposition must end with a newline');
  for (const [i, line] of lines.slice(0, -1).entries()) {
    const where = `line ${i + 1}: "${line}"`;
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const comment = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (comment === null) continue; // other comments are allowed
      const [, kind, name = '', rest = ''] = comment;
      if (!NAME.test(name)) throw new Error(`${where}: bad metric name`);
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`${where}: unknown type`);
        if (types.has(name)) throw new Error(`${where}: TYPE repeated`);
        types.set(name, rest);
      } else help.set(name, rest);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/.exec(line);
    if (sample === null) throw new Error(`${where}: not a sample`);
    const [, name = '', labels = '', value = ''] = sample;
    if (family(name, types) === undefined) throw new Error(`${where}: no TYPE for ${name}`);
    try {
      samples.push({ name, labels: parseLabels(labels), value: parseValue(value) });
    } catch (error) {
      throw new Error(`${where}: ${String(error)}`);
    }
  }
  const same = (a: Readonly<Record<string, string>>, b: Record<string, string>): boolean =>
    Object.keys(a).length === Object.keys(b).length &&
    Object.entries(b).every(([k, v]) => a[k] === v);
  return {
    types,
    help,
    samples,
    value(name, labels = {}) {
      const found = samples.filter((s) => s.name === name && same(s.labels, labels));
      if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} appears twice`);
      return found[0]?.value ?? 0;
    },
  };
}
