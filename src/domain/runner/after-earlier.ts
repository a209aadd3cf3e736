import type { WallClock } from '../../clock.js';
import { sleepOn } from '../../clock.js';
import { DomainError } from '../errors/error-codes.js';

// A form sent twice (a double click, a resent page) claims the same idempotency key; the second
// request finds the first still running. Rather than answer "still running", the portal waits for
// the first to finish and shows its outcome.

const WAIT_STEP_MS = 100;

/**
 * Runs `attempt` again every 100 ms while it fails with `idempotency_in_progress`, for up to
 * `waitMs` of wall time; then that error (or any other) is thrown as it is.
 */
export async function afterEarlierSubmission<T>(
  wallClock: WallClock,
  waitMs: number,
  attempt: () => Promise<T>,
): Promise<T> {
  const deadline = wallClock.now().getTime() + waitMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      const running = error instanceof DomainError && error.code === 'idempotency_in_progress';
      if (!running || wallClock.now().getTime() >= deadline) throw error;
      await sleepOn(wallClock, WAIT_STEP_MS);
    }
  }
}
