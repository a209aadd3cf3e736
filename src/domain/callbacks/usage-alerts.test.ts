import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AssignmentSnapshot, NetworkEvent } from '../esims/lifecycle/network-events.js';
import { crossedThresholds, dueAlerts } from './usage-alerts.js';

const assignment = (used: number, initial = 1000, unlimited = false): AssignmentSnapshot => ({
  id: 'a1',
  reference: 'r1',
  bundleName: 'b',
  description: 'd',
  state: 'Active',
  initialBytes: unlimited ? -1 : initial,
  remainingBytes: unlimited ? -1 : initial - used,
  usedBytes: used,
  unlimited,
  startTime: null,
  endTime: null,
});

const usage = (
  before: number,
  after: number,
  firstUse = false,
  unlimited = false,
): NetworkEvent => ({
  type: 'usage',
  organisationId: 'o',
  iccid: 'i',
  assignment: assignment(after, 1000, unlimited),
  usedBefore: before,
  firstUse,
});

const attach = (
  country: string,
  previousCountry: string | null,
  firstAttachment = false,
): NetworkEvent => ({
  type: 'attach',
  organisationId: 'o',
  iccid: 'i',
  country,
  previousCountry,
  firstAttachment,
  assignment: undefined,
});

describe('usage alerts', () => {
  it('passes each threshold exactly at its byte count, in integers', () => {
    assert.deepEqual(crossedThresholds(1000, 0, 9), []);
    assert.deepEqual(crossedThresholds(1000, 0, 10), [1]);
    assert.deepEqual(crossedThresholds(1000, 10, 499), []);
    assert.deepEqual(crossedThresholds(1000, 499, 500), [50]);
    assert.deepEqual(crossedThresholds(1000, 0, 1000), [1, 50, 80, 100]);
    assert.deepEqual(crossedThresholds(1000, 800, 999), []);
    // 1 % of 333 bytes is 3.33: the alert comes at the 4th byte, not the 3rd.
    assert.deepEqual(crossedThresholds(333, 0, 3), []);
    assert.deepEqual(crossedThresholds(333, 3, 4), [1]);
  });

  it('alerts FirstUse and each passed threshold once per assignment', () => {
    assert.deepEqual(dueAlerts(usage(0, 600, true)), [
      { type: 'FirstUse' },
      { type: 'Utilisation', threshold: 1 },
      { type: 'Utilisation', threshold: 50 },
    ]);
    assert.deepEqual(dueAlerts(usage(0, 600), [1]), [{ type: 'Utilisation', threshold: 50 }]);
    assert.deepEqual(dueAlerts(usage(600, 700)), []);
  });

  it('never alerts utilisation on an unlimited bundle', () => {
    assert.deepEqual(dueAlerts(usage(0, 5000, true, true)), [{ type: 'FirstUse' }]);
  });

  it('alerts FirstAttachment, then CountryChange only when the country changes', () => {
    assert.deepEqual(dueAlerts(attach('FR', null, true)), [{ type: 'FirstAttachment' }]);
    assert.deepEqual(dueAlerts(attach('FR', 'FR')), []);
    assert.deepEqual(dueAlerts(attach('DE', 'FR')), [{ type: 'CountryChange' }]);
  });
});
