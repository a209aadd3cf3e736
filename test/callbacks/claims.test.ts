import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SelectQueryNode, TableNode } from 'kysely';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import { DATABASES, startTestApp } from '../harness.js';
import { holdLocks, waitingOnLocks } from '../locks.js';
import type { TestApp, TestOrg } from '../harness.js';
import { deliveries, instantTransport, recordUsage, snapshot, workerFor } from './fixtures.js';

// A claim that leased fewer events than it asked for found every organisation at its cap: the
// worker claims again only once outcomes have been recorded (room under the cap) or the poll
// interval has passed, never after each send, so a busy organisation costs one claim per batch.

/** Counts the claims' first statement: the organisations with open events, read in turn. */
function claimCounter(): { plugin: KyselyPlugin; count(): number } {
  let claims = 0;
  return {
    plugin: {
      transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
        const node = args.node;
        if (SelectQueryNode.is(node) && node.limit !== undefined) {
          const from = node.from?.froms[0];
          if (from !== undefined && TableNode.is(from)) {
            if (from.table.identifier.name === 'callback_endpoints') claims += 1;
          }
        }
        return node;
      },
      async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
        return args.result;
      },
    },
    count: () => claims,
  };
}

/** Answers every callback 200 at once. */
const instant = instantTransport();

const iccid = (n: number): string => `894400000001${String(n).padStart(7, '0')}`;
const PER_ORGANISATION = 4;
const EVENTS = 24;

for (const kind of DATABASES) {
  describe(`callback claims [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      t = await startTestApp(kind, {
        callbackConcurrency: 16,
        callbackOrgConcurrency: PER_ORGANISATION,
        // Longer than the drain below takes, so the interval adds no claims of its own.
        callbackWorkerIntervalMs: 60_000,
      });
      org = await t.createOrg({ callbackUrl: 'http://127.0.0.1:9/hook', callbackVersion: 'V3' });
    });
    after(async () => {
      await t.close();
    });

    it('claims once per batch an organisation cap allows, not after every send', async () => {
      for (let i = 0; i < EVENTS; i += 1) {
        await recordUsage(t, org.id, snapshot({ usedBytes: 10_000_000 }), 0, { iccid: iccid(i) });
      }
      const queued = await deliveries(t, org.apiKey, '?status=pending&perPage=100');
      assert.equal(queued.length, EVENTS, 'one callback per eSIM queued');

      const counter = claimCounter();
      const db = t.deps.store.db.withPlugin(counter.plugin);
      const worker = workerFor(
        { ...t, deps: { ...t.deps, store: { ...t.deps.store, db } } },
        { transport: instant },
      );
      await worker.drain();
      await worker.stop();

      const left = await deliveries(t, org.apiKey, '?status=pending&perPage=100');
      assert.equal(left.length, 0, 'every callback delivered');
      // EVENTS / PER_ORGANISATION batches, and the claim that finds nothing left.
      const claims = counter.count();
      assert.ok(
        claims <= EVENTS / PER_ORGANISATION + 2,
        `${claims} claims for ${EVENTS} callbacks at ${PER_ORGANISATION} per organisation`,
      );
    });

    if (kind === 'postgres') {
      it('claims for an organisation while a write of its traffic holds its endpoint row', async () => {
        for (let i = 0; i < 3; i += 1) {
          await recordUsage(t, org.id, snapshot({ usedBytes: 10_000_000 }), 0, {
            iccid: iccid(100 + i),
          });
        }
        // A usage or attach of the organisation's, not yet committed: its callback's counters
        // hold the organisation's callback_endpoints row until it commits.
        const traffic = await holdLocks(t.deps.store.db, (trx) =>
          trx
            .updateTable('callback_endpoints')
            .set((eb) => ({ open_events: eb('open_events', '+', 0) }))
            .where('organisation_id', '=', org.id)
            .execute(),
        );

        const worker = workerFor(t, { transport: instant });
        let settled = false;
        const drained = worker.drain().finally(() => {
          settled = true;
        });
        // Progress, not time: the claim either ends (having skipped the organisation) or waits
        // for the row, which PostgreSQL shows as a backend waiting on a lock.
        for (;;) {
          if (settled) break;
          if ((await waitingOnLocks(t.deps.store.db)) > 0) break;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        await traffic.release();
        await drained;
        await worker.stop();
        const left = await deliveries(t, org.apiKey, '?status=pending&perPage=100');
        assert.equal(left.length, 0, 'the callbacks were claimed and delivered, not skipped');
      });
    }
  });
}
