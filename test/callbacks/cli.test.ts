import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { openServices } from '../../src/main.js';
import type { Services } from '../../src/main.js';
import type { NetworkEvent } from '../../src/domain/esims/lifecycle/network-events.js';
import { createCallbackWorker } from '../../src/workers/callback-delivery.js';
import { DATABASES, eventually } from '../harness.js';
import { startReceiver } from '../receiver.js';
import type { Receiver } from '../receiver.js';
import { cliDatabase, runCli } from './cli-env.js';
import type { CliDatabase } from './cli-env.js';
import { ICCID, snapshot } from './fixtures.js';

for (const kind of DATABASES) {
  describe(`esim callbacks list|show|resend [${kind}]`, () => {
    let db: CliDatabase;
    let env: Record<string, string>;
    let receiver: Receiver;
    let services: Services;
    let orgId: string;

    const list = async (...extra: string[]) => {
      const run = await runCli(['callbacks', 'list', orgId, '--json', ...extra], env);
      assert.equal(run.code, 0, run.err);
      return JSON.parse(run.out) as { callbacks: { id: string; status: string }[]; total: number };
    };

    before(async () => {
      db = await cliDatabase(kind);
      receiver = await startReceiver({ behaviours: { '/hook': { status: 500 } } });
      env = {
        DATABASE_URL: db.url,
        DATA_DIR: db.dataDir,
        CALLBACK_RETRY_SCHEDULE: '0.05',
        CALLBACK_WORKER_INTERVAL_MS: '20',
      };
      const created = await runCli(
        ['org', 'create', '--name', 'Listed', '--callback-url', `${receiver.url}/hook`, '--json'],
        env,
      );
      assert.equal(created.code, 0, created.err);
      orgId = JSON.parse(created.out).id;
      // Fixture: one usage report passing 1 % and 50 %, recorded as the lifecycle would.
      services = await openServices(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
      const { deps } = services;
      const event: NetworkEvent = {
        type: 'usage',
        organisationId: orgId,
        iccid: ICCID,
        assignment: snapshot({ usedBytes: 500_000_000 }),
        usedBefore: 0,
        firstUse: false,
      };
      await deps.store.db
        .transaction()
        .execute((trx) => deps.networkEvents.record(trx, event, deps.clock.now()));
    });
    after(async () => {
      await services.close();
      await receiver.close();
      await db.drop();
    });

    it('lists deliveries, with a status filter, as text and JSON', async () => {
      const all = await list();
      assert.equal(all.total, 2);
      assert.deepEqual(
        all.callbacks.map((c) => c.status),
        ['pending', 'pending'],
      );
      assert.equal((await list('--status', 'failed')).total, 0);
      const text = await runCli(['callbacks', 'list', orgId], env);
      assert.equal(text.code, 0);
      assert.match(text.out, /Utilisation\s+pending/);
      assert.match(text.out, /2 of 2 shown/);
      const bad = await runCli(['callbacks', 'list', orgId, '--status', 'lost'], env);
      assert.equal(bad.code, 2);
      assert.match(bad.err, /--status must be one of/);
    });

    it('resends a failed delivery and shows every attempt', async () => {
      const first = (await list()).callbacks[0]?.id ?? '';
      const early = await runCli(['callbacks', 'resend', first], env);
      assert.equal(early.code, 1);
      assert.match(early.err, /already queued/);

      const worker = createCallbackWorker(services.deps, { warn: () => undefined });
      worker.start();
      try {
        await eventually(async () => {
          const { callbacks } = await list('--status', 'failed');
          return callbacks.length === 2 ? true : undefined;
        });
        receiver.behave('/hook', { status: 200 });
        const resent = await runCli(['callbacks', 'resend', first], env);
        assert.equal(resent.code, 0, resent.err);
        assert.equal(resent.out, `queued ${first} for delivery`);
        await eventually(async () => {
          const run = await runCli(['callbacks', 'show', first, '--json'], env);
          const shown = JSON.parse(run.out);
          return shown.status === 'delivered' ? shown : undefined;
        });
      } finally {
        await worker.stop();
      }
      const text = await runCli(['callbacks', 'show', first], env);
      assert.equal(text.code, 0, text.err);
      assert.match(text.out, /status:\s+delivered/);
      assert.match(text.out, /attempt 1 .* HTTP 500/);
      assert.match(text.out, /attempt 2 .* HTTP 500/);
      assert.match(text.out, /attempt 3 .* HTTP 200/);
    });

    it('reports an unknown event id and a missing argument', async () => {
      const missing = await runCli(['callbacks', 'show', 'no-such-event'], env);
      assert.equal(missing.code, 1);
      assert.match(missing.err, /callback no-such-event not found/);
      const usage = await runCli(['callbacks', 'resend'], env);
      assert.equal(usage.code, 2);
      assert.match(usage.err, /expected exactly one event id/);
    });
  });
}
