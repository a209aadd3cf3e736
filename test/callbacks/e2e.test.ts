import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyCallbackSignature } from '../../src/verify.js';
import { DATABASES, eventually } from '../harness.js';
import type { Received } from '../receiver.js';
import { cliDatabase, runCli } from './cli-env.js';
import type { CliDatabase } from './cli-env.js';
import { startReceiverProcess, startServerProcess } from './processes.js';
import type { Proc, ReceiverProc } from './processes.js';

// The whole path over real HTTP: the service and the receiver run as processes; eSIMs are bought
// through POST /v2.1/orders and driven through the /_sim control plane. Each database twice: the
// delivery worker on the service's event loop, then on its delivery thread (the built bundle's
// dist/callback-delivery-worker.cjs, CALLBACK_DELIVERY_THREAD=on).

interface Org {
  id: string;
  apiKey: string;
}

const BYTES_PER_MB = 1_000_000;

for (const [kind, thread] of DATABASES.flatMap((k) => [[k, 'off'] as const, [k, 'on'] as const])) {
  describe(`usage callbacks end to end [${kind}, delivery thread ${thread}]`, () => {
    let db: CliDatabase;
    let env: Record<string, string>;
    let receiver: ReceiverProc;
    let server: Proc;
    let v2: Org;
    let v3: Org;
    let bundle: { name: string; dataAmount: number };

    const call = async (
      apiKey: string | undefined,
      method: string,
      path: string,
      body?: unknown,
    ) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: {
          ...(apiKey === undefined ? {} : { 'x-api-key': apiKey }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`);
      return JSON.parse(text) as Record<string, unknown> & { [k: string]: unknown };
    };

    const createOrg = async (path: string, version: string): Promise<Org> => {
      const run = await runCli(
        [
          'org',
          'create',
          '--name',
          `E2E ${version}`,
          '--balance',
          '1000000',
          '--callback-url',
          `${receiver.url}${path}`,
          '--callback-version',
          version,
          '--no-card',
          '--json',
        ],
        env,
      );
      assert.equal(run.code, 0, run.err);
      return JSON.parse(run.out) as Org;
    };

    const buyAndUse = async (org: Org): Promise<string> => {
      const order = await call(org.apiKey, 'POST', '/v2.1/orders', {
        type: 'transaction',
        assign: true,
        order: [{ type: 'bundle', item: bundle.name, quantity: 1 }],
      });
      const items = order['order'] as { iccids: string[] }[];
      const iccid = items[0]?.iccids[0] ?? '';
      await call(undefined, 'POST', `/_sim/esims/${iccid}/install`, {});
      await call(undefined, 'POST', `/_sim/esims/${iccid}/attach`, { country: 'FR' });
      await call(undefined, 'POST', `/_sim/esims/${iccid}/usage`, {
        bytes: Math.round(bundle.dataAmount * BYTES_PER_MB * 0.6),
      });
      return iccid;
    };

    const arrivals = async (path: string, count: number): Promise<Received[]> =>
      eventually(
        async () => {
          const got = (await receiver.received()).filter((r) => r.path === path);
          return got.length >= count ? got : undefined;
        },
        20_000,
        `${count} callbacks at ${path}`,
      );

    before(async () => {
      db = await cliDatabase(kind);
      receiver = await startReceiverProcess();
      env = {
        DATABASE_URL: db.url,
        DATA_DIR: db.dataDir,
        CALLBACK_RETRY_SCHEDULE: '0.2,0.2',
        CALLBACK_WORKER_INTERVAL_MS: '50',
        CALLBACK_DELIVERY_THREAD: thread,
      };
      // Migrates and seeds the catalogue before the server starts.
      v2 = await createOrg('/v2', 'V2');
      v3 = await createOrg('/v3', 'V3');
      server = await startServerProcess(env);
      const catalogue = (await (
        await fetch(`${server.url}/v2.1/catalogue?countries=FR&orderBy=dataAmount&perPage=50`, {
          headers: { 'x-api-key': v3.apiKey },
        })
      ).json()) as { name: string; dataAmount: number; unlimited: boolean }[];
      const limited = catalogue.find((b) => !b.unlimited && b.dataAmount > 0);
      assert.ok(limited, 'the built-in catalogue has a limited bundle for FR');
      bundle = limited;
    });
    after(async () => {
      await server?.kill('SIGTERM');
      await receiver?.kill('SIGTERM');
      await db.drop();
    });

    it('sends V2 and V3 callbacks for attach and usage, V3 signed with the API key', async () => {
      const iccid2 = await buyAndUse(v2);
      const iccid3 = await buyAndUse(v3);
      // FirstAttachment, FirstUse, and Utilisation at 1 % and 50 %.
      const got2 = await arrivals('/v2', 4);
      const got3 = await arrivals('/v3', 4);
      const types = (got: Received[]) => got.map((r) => JSON.parse(r.rawBody).alertType).sort();
      const expected = ['FirstAttachment', 'FirstUse', 'Utilisation', 'Utilisation'];
      assert.deepEqual(types(got2), expected);
      assert.deepEqual(types(got3), expected);

      for (const r of got2) {
        const body = JSON.parse(r.rawBody);
        assert.equal(body.iccid, iccid2);
        assert.equal(r.headers['x-signature-sha256'], undefined);
        assert.deepEqual(Object.keys(body).sort(), ['alertType', 'bundle', 'iccid']);
        assert.deepEqual(Object.keys(body.bundle).sort(), [
          'endTime',
          'id',
          'initialQuantity',
          'name',
          'remainingQuantity',
          'startTime',
        ]);
        assert.equal(body.bundle.name, bundle.name);
        assert.equal(body.bundle.initialQuantity, bundle.dataAmount * BYTES_PER_MB);
      }
      for (const r of got3) {
        const body = JSON.parse(r.rawBody);
        assert.equal(body.iccid, iccid3);
        assert.ok(
          verifyCallbackSignature(r.rawBody, String(r.headers['x-signature-sha256']), v3.apiKey),
        );
        assert.equal(r.headers['content-type'], 'application/json; charset=utf-8');
        assert.match(
          String(r.headers['x-event-timestamp']),
          /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/,
        );
        assert.deepEqual(Object.keys(body.bundle).sort(), [
          'description',
          'endTime',
          'id',
          'initialQuantity',
          'name',
          'reference',
          'remainingQuantity',
          'startTime',
          'unlimited',
        ]);
      }
      const usage = got3.filter((r) => JSON.parse(r.rawBody).alertType === 'Utilisation');
      assert.deepEqual(
        usage.map((r) => JSON.parse(r.rawBody).threshold).sort((a, b) => a - b),
        [1, 50],
      );

      const listed = (await call(v3.apiKey, 'GET', '/v2.1/callbacks'))['callbacks'] as {
        id: string;
      }[];
      assert.deepEqual(
        new Set(listed.map((c) => c.id)),
        new Set(got3.map((r) => r.headers['x-event-id'])),
      );
      const history = (await call(
        v3.apiKey,
        'GET',
        `/v2.1/esims/${iccid3}/history`,
      )) as unknown as {
        name: string;
        alertType: string;
      }[];
      assert.equal(
        history.filter((h) => h.name === 'Utilisation Alert' && h.alertType === 'Utilisation')
          .length,
        2,
      );
    });

    it('after esim org rotate-key, new callbacks verify with the new key only', async () => {
      const rotated = await runCli(['org', 'rotate-key', v3.id, '--json'], env);
      assert.equal(rotated.code, 0, rotated.err);
      const newKey = (JSON.parse(rotated.out) as { apiKey: string }).apiKey;
      const before = (await receiver.received()).filter((r) => r.path === '/v3').length;
      const iccid = await buyAndUse({ id: v3.id, apiKey: newKey });
      const fresh = (await arrivals('/v3', before + 4)).slice(before);
      assert.equal(fresh.length, 4);
      for (const r of fresh) {
        assert.equal(JSON.parse(r.rawBody).iccid, iccid);
        const signature = String(r.headers['x-signature-sha256']);
        assert.ok(verifyCallbackSignature(r.rawBody, signature, newKey));
        assert.equal(verifyCallbackSignature(r.rawBody, signature, v3.apiKey), false);
      }
    });
  });
}
