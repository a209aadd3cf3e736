// Small statistics and settings the CPU benchmarks share (version-cpu.ts, build-cpu.ts).

export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return (sorted[low] ?? NaN) + ((sorted[high] ?? NaN) - (sorted[low] ?? NaN)) * (at - low);
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);

/** A figure for a table: whole numbers from 100 up, one decimal below. */
export const num = (n: number): string =>
  n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1);

/** The median of per-round ratios b / a, with its interquartile range, for a table cell. */
export function ratioCell(
  a: readonly number[],
  b: readonly number[],
): { median: number; text: string } {
  const ratios = a.map((x, i) => (b[i] ?? NaN) / x);
  const mid = median(ratios);
  return {
    median: mid,
    text: `${mid.toFixed(3)} (${quantile(ratios, 0.25).toFixed(3)} to ${quantile(ratios, 0.75).toFixed(3)})`,
  };
}

/** A positive whole number from the environment, or the fallback when unset. */
export function envInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
}
