// Password checks (scrypt, tens of milliseconds of a core and 32 MiB each) run at most
// `concurrency` at a time, with at most `maxWaiting` queued behind them: a flood of sign-ins
// cannot take every core and all of libuv's thread pool, and what it queues beyond that is
// refused at once ("busy") rather than making a real user wait behind it. With attempts counted
// before they are checked (attempts.ts), a flood against one account or from one address queues
// at most its limit anyway.

export interface PasswordGate {
  /** Runs `check` when a slot is free; undefined, at once, when too many already wait. */
  run<T>(check: () => Promise<T>): Promise<T | undefined>;
}

export function createPasswordGate(concurrency: number, maxWaiting: number): PasswordGate {
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = (): void => {
    const next = waiting.shift();
    if (next === undefined) running -= 1;
    else next();
  };
  return {
    async run(check) {
      if (running >= concurrency) {
        if (waiting.length >= maxWaiting) return undefined;
        await new Promise<void>((resolve) => waiting.push(resolve));
      } else {
        running += 1;
      }
      try {
        return await check();
      } finally {
        release();
      }
    },
  };
}
