import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { iso } from './clock.js';

describe('iso', () => {
  it('writes what toISOString writes, for every kind of date', () => {
    const edges = [
      0,
      1,
      999,
      86_399_999,
      86_400_000,
      951_782_400_000, // 2000-02-29
      951_868_799_999,
      4_107_542_400_000, // 2100-03-01 (2100 is no leap year)
      1_790_000_000_123,
      253_402_300_799_999, // 9999-12-31T23:59:59.999Z
      253_402_300_800_000, // 10000: six-digit year
      -1, // before 1970
      -62_198_755_200_000, // year 0
      8.64e15,
    ];
    for (const ms of edges) assert.equal(iso(new Date(ms)), new Date(ms).toISOString(), `${ms}`);
    // Every day from 1970 to 2200 at a random time of day, and random instants up to 9999.
    for (let day = 0; day < 84_000; day += 1) {
      const ms = day * 86_400_000 + Math.floor(Math.random() * 86_400_000);
      assert.equal(iso(new Date(ms)), new Date(ms).toISOString());
    }
    for (let i = 0; i < 100_000; i += 1) {
      const ms = Math.floor(Math.random() * 253_402_300_800_000);
      assert.equal(iso(new Date(ms)), new Date(ms).toISOString());
    }
  });

  it('refuses an invalid date as toISOString does', () => {
    assert.throws(() => iso(new Date(Number.NaN)), RangeError);
  });
});
