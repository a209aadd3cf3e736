import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDateTime, formatMoney } from './format.js';

// The formatters are made once per time zone and currency and kept: the answers must not depend
// on which zone or currency was formatted before.

describe('portal formats', () => {
  it('formats each instant in the time zone asked for, whatever was asked before', () => {
    const at = '2026-11-23T20:06:00Z';
    for (let round = 0; round < 2; round += 1) {
      assert.equal(formatDateTime(at, 'Europe/London'), '23 Nov 2026, 20:06 GMT');
      assert.equal(formatDateTime(at, 'Asia/Tokyo'), '24 Nov 2026, 05:06 GMT+9');
      assert.equal(
        formatDateTime('2026-07-01T12:00:00Z', 'Europe/London'),
        '1 Jul 2026, 13:00 BST',
      );
    }
    assert.equal(formatDateTime('not a date', 'UTC'), 'not a date');
  });

  it('formats money in the currency asked for, with its own minor unit', () => {
    for (let round = 0; round < 2; round += 1) {
      assert.equal(formatMoney(100_000, 'USD'), '$1,000.00');
      assert.equal(formatMoney(1_500, 'JPY'), '¥1,500');
      assert.equal(formatMoney(1_234, 'EUR'), '€12.34');
    }
  });
});
