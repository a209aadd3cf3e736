import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Capability } from '../../src/http/versions/capabilities.js';
import { CAPABILITIES } from '../../src/http/versions/capabilities.js';
import { VERSIONS } from '../../src/http/versions/index.js';

// Each version's capabilities: a typed set, each later version keeping the ones before it.

// A misspelt capability does not compile (`npm run typecheck` fails on an unused expectation).
// @ts-expect-error: not a capability
const misspelt: Capability = 'asyncOrdres';

describe('version capabilities', () => {
  it('are capabilities, kept by every later version', () => {
    assert.equal(CAPABILITIES.includes(misspelt), false);
    const turnedOn = VERSIONS.map((v) => [...v.capabilities].sort());
    assert.deepEqual(turnedOn, [
      [],
      ['applyRecordsOrder', 'asyncOrders', 'filterOperators', 'installDataLists'],
      [
        'applyRecordsOrder',
        'assignmentWindow',
        'asyncOrders',
        'filterOperators',
        'installDataLists',
      ],
      [
        'applyRecordsOrder',
        'assignmentWindow',
        'asyncOrders',
        'filterOperators',
        'installDataLists',
        'rateLimitByAddress',
        'refundToBalanceByName',
      ],
      [
        'androidInstallUrl',
        'applyRecordsOrder',
        'assignmentWindow',
        'asyncOrders',
        'filterOperators',
        'installDataJsonByDefault',
        'installDataLists',
        'rateLimitByAddress',
        'refundToBalanceByAssignment',
        'refundToBalanceByName',
      ],
    ]);
  });
});
