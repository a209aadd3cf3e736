import { randomBytes, randomFillSync, randomInt, randomUUID } from 'node:crypto';
import { v7 } from 'uuid';

// Identifiers and simulated randomness come from an injected source, so a simulator run under a
// seed is reproducible and production uses the operating system's generator.

export interface RandomSource {
  /** An integer in [0, max). */
  int(max: number): number;
  /** A float in [0, 1). */
  float(): number;
  /** A random UUID (version 4): nothing in it can be guessed from another. */
  uuid(): string;
  /**
   * A UUID that sorts by creation time (version 7: 48 bits of milliseconds, then 74 random
   * bits), for the primary keys written on every order. Rows keyed by it are appended to the
   * end of their indexes, where a random key dirties a different page of each index per insert:
   * on SQLite those pages are what every commit writes to the WAL. Still a UUID, as the
   * interface promises; not for anything that must not reveal when it was made.
   */
  orderedUuid(): string;
  /** True for a seeded sequence: what it draws repeats run after run (never in production). */
  readonly seeded?: boolean;
  /**
   * A seeded sequence only: start again from this seed, or carry on from a position another
   * seeded sequence reached.
   */
  reseed?(seed: number | SeededPosition): void;
  /** A seeded sequence only: where it is now. */
  position?(): SeededPosition;
}

/** Where a seeded sequence is: what it draws next follows from this alone. */
export interface SeededPosition {
  readonly state: number;
  readonly sequence: number;
}

const UINT32_RANGE = 2 ** 32;

/**
 * The operating system's generator. Small integers (every digit of an ICCID, PIN, PUK and
 * matching id: some fifty per issued eSIM) come from a pool of its bytes refilled 4 KiB at a
 * time: crypto.randomInt costs about a microsecond a call, most of it argument checks.
 * Rejection sampling keeps them uniform, as randomInt does.
 */
function osRandom(): RandomSource {
  const pool = new Uint32Array(1024);
  let next = pool.length;
  const uint32 = (): number => {
    if (next === pool.length) {
      randomFillSync(pool);
      next = 0;
    }
    const value = pool[next] ?? 0;
    next += 1;
    return value;
  };
  return {
    int: (max) => {
      if (!Number.isSafeInteger(max) || max <= 0 || max > UINT32_RANGE) return randomInt(max);
      // The largest multiple of max that fits: values at or past it would favour small results.
      const limit = UINT32_RANGE - (UINT32_RANGE % max);
      for (;;) {
        const value = uint32();
        if (value < limit) return value % max;
      }
    },
    float: () => randomBytes(6).readUIntBE(0, 6) / 2 ** 48,
    uuid: () => randomUUID(),
    orderedUuid: orderedUuids(),
  };
}

/**
 * UUIDs version 7 from a pool of random bytes refilled 4 KiB at a time: `uuid`'s own source
 * asks the operating system's generator for 16 bytes per id, about 5 µs a call here. Ids made
 * in the same millisecond follow each other, as `uuid` keeps them: a counter seeded from the
 * random bits, carried into the next millisecond when it wraps.
 */
function orderedUuids(): () => string {
  const pool = new Uint8Array(4096);
  let next = pool.length;
  let msecs = -Infinity;
  let seq = 0;
  return () => {
    if (next + 16 > pool.length) {
      randomFillSync(pool);
      next = 0;
    }
    const random = pool.subarray(next, next + 16);
    next += 16;
    const now = Date.now();
    if (now > msecs) {
      msecs = now;
      // 31 random bits, so the counter has room to count up within the millisecond.
      seq =
        (((random[6] ?? 0) & 0x7f) << 24) |
        ((random[7] ?? 0) << 16) |
        ((random[8] ?? 0) << 8) |
        (random[9] ?? 0);
    } else {
      seq = (seq + 1) | 0;
      if (seq === 0) msecs += 1;
    }
    return v7({ random, msecs, seq });
  };
}

export const cryptoRandom: RandomSource = osRandom();

/** mulberry32: small, fast, good enough for simulation; not for secrets. */
export function seededRandom(seed: number): RandomSource {
  let state = seed >>> 0;
  let sequence = 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const hex = (n: number): string =>
    Array.from({ length: n }, () => Math.floor(next() * 16).toString(16)).join('');
  return {
    seeded: true,
    reseed: (value) => {
      state = (typeof value === 'number' ? value : value.state) >>> 0;
      sequence = typeof value === 'number' ? 0 : value.sequence;
    },
    position: () => ({ state, sequence }),
    int: (max) => Math.floor(next() * max),
    float: next,
    uuid: () =>
      `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[Math.floor(next() * 4)]}${hex(3)}-${hex(12)}`,
    // Reproducible: a counter stands in for the clock, so the ids still sort in creation order.
    orderedUuid: () => {
      sequence += 1;
      const random = Uint8Array.from({ length: 16 }, () => Math.floor(next() * 256));
      return v7({ msecs: sequence, random });
    },
  };
}
