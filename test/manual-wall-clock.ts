import type { WallClock } from '../src/clock.js';

interface Pending {
  readonly at: number;
  readonly fn: () => void;
  cancelled: boolean;
}

/**
 * A wall clock that stands still until the test moves it: leases, payment timeouts and the test
 * processor's latency then happen exactly when the test says, never because a real sleep ran out.
 */
export class ManualWallClock implements WallClock {
  private ms: number;
  private pending: Pending[] = [];

  constructor(start: Date = new Date()) {
    this.ms = start.getTime();
  }

  now(): Date {
    return new Date(this.ms);
  }

  setTimer(ms: number, fn: () => void): () => void {
    const entry: Pending = { at: this.ms + ms, fn, cancelled: false };
    this.pending.push(entry);
    return () => {
      entry.cancelled = true;
    };
  }

  /** Timers set and neither fired nor cancelled. */
  get waiting(): number {
    return this.pending.filter((p) => !p.cancelled).length;
  }

  /** Milliseconds from now until the first timer set falls due, or undefined when none is. */
  get nextDue(): number | undefined {
    const live = this.pending.filter((p) => !p.cancelled);
    return live.length === 0 ? undefined : Math.min(...live.map((p) => p.at)) - this.ms;
  }

  /** Moves time forward, firing due timers in the order they fall due. */
  advance(ms: number): void {
    this.ms += ms;
    const due = this.pending.filter((p) => p.at <= this.ms).sort((a, b) => a.at - b.at);
    this.pending = this.pending.filter((p) => p.at > this.ms);
    for (const p of due) if (!p.cancelled) p.fn();
  }
}
