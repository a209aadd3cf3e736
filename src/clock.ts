// Time comes from here, never from Date.now() in domain code, so the simulator can advance it
// and tests never sleep.

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * Real time, for what bounds real work: leases, timeouts, the wait for another system's answer.
 * The simulator never moves it (a lease must not lapse because the simulated clock jumped), but
 * it is injected like the service clock, so tests drive it instead of sleeping.
 */
export interface WallClock extends Clock {
  /** Calls fn once, ms milliseconds from now; the returned function cancels the call. */
  setTimer(ms: number, fn: () => void): () => void;
}

export const systemWallClock: WallClock = {
  now: () => new Date(),
  setTimer(ms, fn) {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};

/** Resolves after ms milliseconds of the given wall clock. */
export function sleepOn(clock: WallClock, ms: number): Promise<void> {
  return new Promise((resolve) => {
    clock.setTimer(ms, resolve);
  });
}

/**
 * A clock that runs with real time plus an offset that only ever grows (simulator mode). The
 * offset lives in shared memory: a worker thread (the callback delivery thread) builds a clock on
 * the same `sharedOffset` and reads every move the simulator makes, without a message.
 */
export class OffsetClock implements Clock {
  private readonly cell: Float64Array;
  /** The base's time in ms: on the system clock without a Date of its own (one a call, not two). */
  private readonly baseMs: () => number;

  constructor(
    offsetMs: number | SharedArrayBuffer = 0,
    private readonly base: Clock = systemClock,
  ) {
    if (typeof offsetMs === 'number') {
      this.cell = new Float64Array(new SharedArrayBuffer(8));
      this.cell[0] = offsetMs;
    } else {
      this.cell = new Float64Array(offsetMs, 0, 1);
    }
    this.baseMs = base === systemClock ? Date.now : () => base.now().getTime();
  }

  now(): Date {
    return new Date(this.baseMs() + this.offset);
  }

  get offset(): number {
    return this.cell[0] ?? 0;
  }

  /** The memory the offset is kept in, for a clock on another thread. */
  get sharedOffset(): SharedArrayBuffer {
    return this.cell.buffer as SharedArrayBuffer;
  }

  /** Whether it runs on the system clock, which another thread can read too. */
  get onSystemClock(): boolean {
    return this.base === systemClock;
  }

  setOffset(ms: number): void {
    this.cell[0] = ms;
  }

  advance(seconds: number): Date {
    this.cell[0] = this.offset + Math.round(seconds * 1000);
    return this.now();
  }
}

/** Milliseconds since the epoch of 10000-01-01: from there on toISOString writes six digits. */
const YEAR_10000 = 253_402_300_800_000;
const MS_PER_DAY = 86_400_000;

const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
const three = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * RFC 3339 UTC with a trailing Z, the only date format the API emits and the store keeps: what
 * toISOString gives, written here for the years 1970 to 9999 (an order formats several dates,
 * and toISOString costs about three times as much); others, and invalid dates, go to it.
 */
export function iso(date: Date): string {
  const ms = date.getTime();
  if (!(ms >= 0 && ms < YEAR_10000)) return date.toISOString();
  // The civil date of a day number (days since 1970-01-01), in 400-year eras from 0000-03-01.
  const days = Math.floor(ms / MS_PER_DAY);
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear =
    dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const m5 = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * m5 + 2) / 5) + 1;
  const month = m5 < 10 ? m5 + 3 : m5 - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  let rest = ms - days * MS_PER_DAY;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${year}-${two(month)}-${two(day)}T${two(hours)}:${two(minutes)}:${two(seconds)}.${three(rest - seconds * 1000)}Z`;
}

export function addSeconds(date: Date, seconds: number): Date {
  return new Date(date.getTime() + seconds * 1000);
}

export function addDays(date: Date, days: number): Date {
  return addSeconds(date, days * 86_400);
}
