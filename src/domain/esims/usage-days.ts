import { addDays } from '../../clock.js';
import type { DayUsage } from '../../store/repositories/usage-repository.js';

// The days a usage chart covers. Usage is added up per UTC day as the network reports it
// (per organisation and per eSIM); a chart shows the last USAGE_DAYS
// days by the service's clock, so in the simulator the moved clock decides which days they are.

export type { DayUsage } from '../../store/repositories/usage-repository.js';

/** How many days the usage charts cover: today (UTC, by the service's clock) and the days before. */
export const USAGE_DAYS = 30;

/** Every UTC day of the `count` days ending on the day of `at`, oldest first, with its usage. */
export function dailySeries(rows: readonly DayUsage[], at: Date, count: number): DayUsage[] {
  const used = new Map(rows.map((r) => [r.day, r.bytes]));
  const days: DayUsage[] = [];
  for (let back = count - 1; back >= 0; back -= 1) {
    const day = addDays(at, -back).toISOString().slice(0, 10);
    days.push({ day, bytes: used.get(day) ?? 0 });
  }
  return days;
}

/** The first and last UTC day (YYYY-MM-DD) of the `count` days ending on the day of `at`. */
export function dayRange(at: Date, count: number): { from: string; to: string } {
  return {
    from: addDays(at, -(count - 1))
      .toISOString()
      .slice(0, 10),
    to: at.toISOString().slice(0, 10),
  };
}
