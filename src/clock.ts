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

/** A clock that runs with real time plus an offset that only ever grows (simulator mode). */
export class OffsetClock implements Clock {
  constructor(
    private offsetMs = 0,
    private readonly base: Clock = systemClock,
  ) {}

  now(): Date {
    return new Date(this.base.now().getTime() + this.offsetMs);
  }

  get offset(): number {
    return this.offsetMs;
  }

  setOffset(ms: number): void {
    this.offsetMs = ms;
  }

  advance(seconds: number): Date {
    this.offsetMs += Math.round(seconds * 1000);
    return this.now();
  }
}

/** RFC 3339 UTC with a trailing Z, the only date format the API emits and the store keeps. */
export function iso(date: Date): string {
  return date.toISOString();
}

export function addSeconds(date: Date, seconds: number): Date {
  return new Date(date.getTime() + seconds * 1000);
}

export function addDays(date: Date, days: number): Date {
  return addSeconds(date, days * 86_400);
}
