import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import { foundation } from './001-foundation.js';
import { catalogue } from './002-catalogue.js';
import { orders } from './003-orders.js';
import { esims } from './004-esims.js';
import { callbacks } from './005-callbacks.js';
import { liveRoutes } from './007-live-routes.js';
import { callbackOrder } from './008-callback-order.js';
import { operations } from './009-operations.js';
import { authState } from './013-auth-state.js';
import { portal } from './014-portal.js';
import { portalMoney } from './015-portal-money.js';
import { bundleJson } from './016-bundle-json.js';
import { ledgerReference } from './017-ledger-reference.js';
import { esimState } from './018-esim-state.js';
import { deferredRequests } from './019-deferred-requests.js';
import { callbackFairness } from './021-callback-fairness.js';
import { growth } from './022-growth.js';
import { listCounters } from './023-list-counters.js';
import { consoleTables } from './024-console.js';
import { orderTimes } from './025-order-times.js';
import { esimFilters } from './026-esim-filters.js';
import { esimDeletions } from './027-esim-deletions.js';
import { callbackWrites } from './028-callback-writes.js';
import { callbackDeletions } from './029-callback-deletions.js';
import { unreadIndexes } from './030-unread-indexes.js';
import { ledgerBySeq } from './031-ledger-by-seq.js';
import { bundlesHeld } from './032-bundles-held.js';
import { dueIndexes } from './033-due-indexes.js';
import { assignmentCounts } from './034-assignment-counts.js';
import { countDeltas } from './035-count-deltas.js';
import { numberedInserts } from './036-numbered-inserts.js';

export interface MigrationStep {
  up(db: Kysely<unknown>): Promise<void>;
}

/** Every migration, in order. Names sort lexically; applied ones are never edited. */
export function migrationsFor(dialect: DialectName): Record<string, MigrationStep> {
  return {
    '001-foundation': foundation(dialect),
    '002-catalogue': catalogue(dialect),
    '003-orders': orders(dialect),
    '004-esims': esims(dialect),
    '005-callbacks': callbacks(dialect),
    '007-live-routes': liveRoutes(dialect),
    '008-callback-order': callbackOrder(dialect),
    '009-operations': operations(dialect),
    '013-auth-state': authState(dialect),
    '014-portal': portal(dialect),
    '015-portal-money': portalMoney(dialect),
    '016-bundle-json': bundleJson(dialect),
    '017-ledger-reference': ledgerReference(),
    '018-esim-state': esimState(dialect),
    '019-deferred-requests': deferredRequests(dialect),
    '021-callback-fairness': callbackFairness(dialect),
    '022-growth': growth(dialect),
    '023-list-counters': listCounters(dialect),
    '024-console': consoleTables(dialect),
    '025-order-times': orderTimes(),
    '026-esim-filters': esimFilters(dialect),
    '027-esim-deletions': esimDeletions(dialect),
    '028-callback-writes': callbackWrites(dialect),
    '029-callback-deletions': callbackDeletions(dialect),
    '030-unread-indexes': unreadIndexes(),
    '031-ledger-by-seq': ledgerBySeq(),
    '032-bundles-held': bundlesHeld(dialect),
    '033-due-indexes': dueIndexes(),
    '034-assignment-counts': assignmentCounts(dialect),
    '035-count-deltas': countDeltas(dialect),
    '036-numbered-inserts': numberedInserts(dialect),
  };
}
