// A deadline and a circuit breaker in front of Redis. Each call gets `timeoutMs`; a call that
// fails or runs past it counts as a failure and the caller falls back (to its in-process
// counters). After `failuresToOpen` failures in a row the breaker opens: for `openMs` no call is
// sent at all, so a Redis that accepts connections but never answers (paused, partitioned,
// failing over) costs requests nothing rather than each its deadline. Once `openMs` is over one
// call at a time is let through as a probe; its success closes the breaker.

export type FallbackReason = 'timeout' | 'error' | 'open';

export interface RedisObserver {
  /** One call answered from the in-process counters instead of Redis, and why. */
  fallback(reason: FallbackReason): void;
  /** The breaker opened (true) or closed again (false). */
  breaker(open: boolean): void;
}

export interface GuardOptions {
  readonly timeoutMs: number;
  readonly failuresToOpen: number;
  readonly openMs: number;
  readonly now: () => number;
  readonly observer?: RedisObserver;
  /** Told once per change of state, for the log. */
  readonly onChange?: (open: boolean, cause: unknown) => void;
}

export class DeadlineExceeded extends Error {
  constructor(timeoutMs: number) {
    super(`Redis did not answer within ${timeoutMs} ms`);
  }
}

export interface RedisGuard {
  /**
   * Runs `call` with the deadline; on failure, timeout or an open breaker runs `fallback`.
   * `isAnswer` tells an answer carried by a rejection (rate-limiter-flexible rejects a refusal)
   * from a failure.
   */
  run<T>(
    call: () => Promise<T>,
    fallback: () => Promise<T>,
    isAnswer: (e: unknown) => boolean,
  ): Promise<T>;
  /** Whether calls currently skip Redis. */
  isOpen(): boolean;
}

function withDeadline<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded(timeoutMs)), timeoutMs);
    timer.unref();
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

export function createRedisGuard(options: GuardOptions): RedisGuard {
  let failures = 0;
  let openUntil: number | undefined;
  let probing = false;

  const succeed = (): void => {
    failures = 0;
    if (openUntil !== undefined) {
      openUntil = undefined;
      options.observer?.breaker(false);
      options.onChange?.(false, undefined);
    }
  };
  const fail = (cause: unknown): void => {
    failures += 1;
    if (openUntil !== undefined) {
      // A failed probe: stay open for another period.
      openUntil = options.now() + options.openMs;
      return;
    }
    if (failures >= options.failuresToOpen) {
      openUntil = options.now() + options.openMs;
      options.observer?.breaker(true);
      options.onChange?.(true, cause);
    }
  };

  return {
    isOpen: () => openUntil !== undefined,
    async run<T>(
      call: () => Promise<T>,
      fallback: () => Promise<T>,
      isAnswer: (e: unknown) => boolean,
    ): Promise<T> {
      let probe = false;
      if (openUntil !== undefined) {
        if (probing || options.now() < openUntil) {
          options.observer?.fallback('open');
          return fallback();
        }
        probing = true;
        probe = true;
      }
      let outcome: { ok: true; value: T } | { ok: false; error: unknown };
      try {
        outcome = { ok: true, value: await withDeadline(call(), options.timeoutMs) };
      } catch (error) {
        outcome = { ok: false, error };
      } finally {
        if (probe) probing = false;
      }
      if (outcome.ok) {
        succeed();
        return outcome.value;
      }
      if (isAnswer(outcome.error)) {
        succeed();
        throw outcome.error;
      }
      fail(outcome.error);
      options.observer?.fallback(outcome.error instanceof DeadlineExceeded ? 'timeout' : 'error');
      return fallback();
    },
  };
}
