import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cryptoRandom, seededRandom } from './random.js';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('random sources', () => {
  it('makes ordered UUIDs (version 7) that sort in the order they were made', () => {
    for (const source of [cryptoRandom, seededRandom(7)]) {
      const ids = Array.from({ length: 200 }, () => source.orderedUuid());
      for (const id of ids) assert.match(id, V7);
      assert.deepEqual([...ids].sort(), ids);
      assert.equal(new Set(ids).size, ids.length);
      assert.match(source.uuid(), V4);
    }
  });

  it('keeps ordered UUIDs sorted and unique across refills of its random pool and milliseconds', () => {
    const ids: string[] = [];
    const until = Date.now() + 5;
    while (ids.length < 5000 || Date.now() <= until) ids.push(cryptoRandom.orderedUuid());
    for (const id of ids) assert.match(id, V7);
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids).size, ids.length);
    // The random part differs from id to id (not one pool slice repeated).
    assert.equal(new Set(ids.map((id) => id.slice(-12))).size, ids.length);
  });

  it('repeats the same ordered UUIDs under the same seed', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const first = [a.orderedUuid(), a.uuid(), a.orderedUuid()];
    assert.deepEqual([b.orderedUuid(), b.uuid(), b.orderedUuid()], first);
    assert.notDeepEqual([seededRandom(43).orderedUuid()], [first[0]]);
  });

  it('draws small integers uniformly and within range', () => {
    const counts = new Array<number>(10).fill(0);
    const draws = 100_000;
    for (let i = 0; i < draws; i += 1) {
      const value = cryptoRandom.int(10);
      assert.ok(Number.isInteger(value) && value >= 0 && value < 10, String(value));
      counts[value] = (counts[value] ?? 0) + 1;
    }
    // Each digit within 5 % of its share: over five standard deviations, so about once in a
    // million runs by chance.
    for (const count of counts)
      assert.ok(Math.abs(count - draws / 10) < draws / 200, String(count));
    for (const max of [1, 3, 36, 2 ** 32, 2 ** 40]) {
      const value = cryptoRandom.int(max);
      assert.ok(Number.isInteger(value) && value >= 0 && value < max, `${value} < ${max}`);
    }
  });
});
