import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { DATABASES, eventually, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { startReceiver } from '../receiver.js';
import type { Receiver } from '../receiver.js';
import type { CallbackWorker } from '../../src/workers/callback-delivery.js';
import { cliDatabase, runCli, TEST_MASTER_KEY } from './cli-env.js';
import type { CliDatabase } from './cli-env.js';
import { deliveries, oneEvent, workerFor } from './fixtures.js';

// Production mode refuses callback URLs that point inside the network, when they are saved and
// again on every connection. test/fixtures/tls holds a self-signed certificate for 127.0.0.1 and
// 127.0.0.2 (valid for 100 years), so the https-only rule is exercised over real TLS; 127.0.0.2
// is opened with CALLBACK_ALLOW_CIDRS and plays the part of a public receiver.

const tls = {
  key: readFileSync(new URL('../fixtures/tls/receiver-key.pem', import.meta.url)),
  cert: readFileSync(new URL('../fixtures/tls/receiver-cert.pem', import.meta.url)),
};

const REFUSED_AT_SAVE = [
  'http://callbacks.example.com/hook',
  'https://127.0.0.1/hook',
  'https://10.0.0.1/hook',
  'https://169.254.169.254/latest/meta-data',
  'https://[::1]/hook',
  'https://[::ffff:127.0.0.1]/hook',
  'https://100.64.0.1/hook',
  'https://[fe80::1]/hook',
  'https://localhost/hook',
];

for (const kind of DATABASES) {
  describe(`callback URL guard at save time (esim org update, production mode) [${kind}]`, () => {
    let db: CliDatabase;
    let env: Record<string, string>;
    let orgId: string;

    before(async () => {
      db = await cliDatabase(kind);
      env = {
        MODE: 'production',
        MASTER_KEY: TEST_MASTER_KEY,
        DATABASE_URL: db.url,
        DATA_DIR: db.dataDir,
        CALLBACK_ALLOW_CIDRS: '127.0.0.2/32',
      };
      const created = await runCli(['org', 'create', '--name', 'Guarded', '--json'], env);
      assert.equal(created.code, 0, created.err);
      orgId = JSON.parse(created.out).id;
    });
    after(() => db.drop());

    for (const url of REFUSED_AT_SAVE) {
      it(`refuses ${url}`, async () => {
        const run = await runCli(['org', 'update', orgId, '--callback-url', url], env);
        assert.equal(run.code, 1);
        assert.match(run.err, /callbackUrl/);
        const listed = await runCli(['org', 'list', '--json'], env);
        assert.equal(JSON.parse(listed.out)[0].callbackUrl, '');
      });
    }

    it('applies the same guard to esim org create, which then creates nothing', async () => {
      for (const url of [
        'https://127.0.0.1/hook',
        'http://callbacks.example.com/hook',
        'https://169.254.169.254/latest/meta-data',
      ]) {
        const run = await runCli(
          ['org', 'create', '--name', 'Internal', '--balance', '5000', '--callback-url', url],
          env,
        );
        assert.equal(run.code, 1, url);
        assert.equal(run.out, '');
        assert.match(run.err, /callbackUrl (is refused|must be an https URL)/);
      }
      const refused = await runCli(
        ['org', 'create', '--name', 'Internal', '--callback-url', 'https://10.1.2.3/hook'],
        env,
      );
      assert.match(
        refused.err,
        /^esim: callbackUrl is refused: 10\.1\.2\.3 is a private address; callbacks are only sent to public addresses/,
      );
      const named = await runCli(
        ['org', 'create', '--name', 'Internal', '--callback-url', 'https://localhost/hook'],
        env,
      );
      assert.match(named.err, /localhost resolves to (127\.0\.0\.1|::1), a loopback address;/);
      const listed = await runCli(['org', 'list', '--json'], env);
      assert.deepEqual(
        (JSON.parse(listed.out) as { name: string }[]).map((o) => o.name),
        ['Guarded'],
      );
      const verified = await runCli(['ledger', 'verify', '--json'], env);
      assert.equal(verified.code, 0, verified.err);

      const created = await runCli(
        [
          'org',
          'create',
          '--name',
          'Public',
          '--callback-url',
          'https://93.184.215.14/hook',
          '--json',
        ],
        env,
      );
      assert.equal(created.code, 0, created.err);
      const publicOrg = (
        JSON.parse((await runCli(['org', 'list', '--json'], env)).out) as {
          name: string;
          callbackUrl: string;
        }[]
      ).find((o) => o.name === 'Public');
      assert.equal(publicOrg?.callbackUrl, 'https://93.184.215.14/hook');
    });

    it('accepts a public address and a range opened by CALLBACK_ALLOW_CIDRS', async () => {
      for (const url of ['https://93.184.215.14/hook', 'https://127.0.0.2:8443/hook']) {
        const run = await runCli(['org', 'update', orgId, '--callback-url', url, '--json'], env);
        assert.equal(run.code, 0, run.err);
        assert.equal(JSON.parse(run.out).callbackUrl, url);
      }
    });

    it('never opens a cloud metadata address, whatever range CALLBACK_ALLOW_CIDRS opens', async () => {
      // Ranges an operator opens for receivers (a CGNAT overlay such as 100.64.0.0/10, link-local
      // 169.254.0.0/16) hold the metadata services of Alibaba Cloud and of AWS, GCP and Azure.
      // The container credential endpoints too (AWS ECS tasks, EKS Pod Identity).
      const wide = { ...env, CALLBACK_ALLOW_CIDRS: '100.64.0.0/10,169.254.0.0/16,fc00::/7' };
      for (const url of [
        'https://169.254.169.254/latest/meta-data',
        'https://100.100.100.200/latest/meta-data',
        'https://169.254.170.2/v2/credentials',
        'https://[fd00:ec2::23]/v1/credentials',
      ]) {
        const run = await runCli(['org', 'update', orgId, '--callback-url', url], wide);
        assert.equal(run.code, 1, url);
        assert.match(run.err, /is a cloud metadata address/);
      }
      for (const url of ['https://100.64.0.1/hook', 'https://169.254.10.1/hook']) {
        const run = await runCli(['org', 'update', orgId, '--callback-url', url, '--json'], wide);
        assert.equal(run.code, 0, run.err);
        assert.equal(JSON.parse(run.out).callbackUrl, url);
      }
    });

    it('allows local receivers in simulator mode', async () => {
      // A database of its own: the simulator never opens one production has run on.
      const own = await cliDatabase(kind);
      try {
        const simulator = { MODE: 'simulator', DATABASE_URL: own.url, DATA_DIR: own.dataDir };
        const created = await runCli(['org', 'create', '--name', 'Local', '--json'], simulator);
        assert.equal(created.code, 0, created.err);
        const id = (JSON.parse(created.out) as { id: string }).id;
        const run = await runCli(
          ['org', 'update', id, '--callback-url', 'http://127.0.0.1:9999/hook'],
          simulator,
        );
        assert.equal(run.code, 0, run.err);
      } finally {
        await own.drop();
      }
    });
  });

  describe(`callback URL guard at connect time (production mode) [${kind}]`, () => {
    let t: TestApp;
    let trap: Receiver; // a loopback receiver that must never be reached
    let allowed: Receiver; // on 127.0.0.2, opened by CALLBACK_ALLOW_CIDRS
    let worker: CallbackWorker;

    before(async () => {
      trap = await startReceiver({ host: '127.0.0.1', tls });
      allowed = await startReceiver({ host: '127.0.0.2', tls });
      t = await startTestApp(kind, {
        mode: 'production',
        callbackAllowCidrs: ['127.0.0.2/32'],
        callbackRetryScheduleSeconds: [0.05],
        callbackWorkerIntervalMs: 20,
      });
      worker = workerFor(t, { ca: tls.cert });
      worker.start();
    });
    after(async () => {
      await worker.stop();
      await t.close();
      await trap.close();
      await allowed.close();
    });

    async function finalAttempts(org: TestOrg) {
      const [d] = await eventually(async () => {
        const list = await deliveries(t, org.apiKey);
        const first = list[0];
        if (first?.status === 'failed' || first?.status === 'delivered') return list;
        // A failed attempt backs the endpoint off for a second of the service's clock: the test
        // moves the clock on instead of waiting for it.
        if (first !== undefined && first.attemptCount > 0) t.clock.advance(1);
        return undefined;
      });
      assert.ok(d);
      const res = await t.request(org.apiKey, { method: 'GET', url: `/v2.1/callbacks/${d.id}` });
      return res.json() as {
        status: string;
        attempts: { statusCode: number; error: string }[];
      };
    }

    const port = () => new URL(trap.url).port;
    const refusedAtConnect: [string, () => string, RegExp][] = [
      ['loopback', () => `https://127.0.0.1:${port()}/a`, /127\.0\.0\.1 is a loopback address/],
      [
        'a name resolving to loopback',
        () => `https://localhost:${port()}/b`,
        /localhost resolves to .* loopback/,
      ],
      ['IPv4-mapped loopback', () => `https://[::ffff:127.0.0.1]:${port()}/c`, /loopback/],
      ['IPv6 loopback', () => `https://[::1]:${port()}/d`, /::1 is a loopback address/],
      ['private', () => 'https://10.0.0.1/e', /10\.0\.0\.1 is a private address/],
      ['cloud metadata', () => 'https://169.254.169.254/latest/meta-data', /cloud metadata/],
      ['plain http', () => `http://127.0.0.2:${new URL(allowed.url).port}/f`, /must be https/],
    ];

    for (const [what, url, reason] of refusedAtConnect) {
      it(`records a failed attempt and sends nothing to ${what}`, async () => {
        // Saved before the address turned bad (or by an older version): only the connect-time
        // check stands between the event and the address.
        const org = await t.createOrg({ callbackUrl: url(), callbackVersion: 'V3' });
        await oneEvent(t, org.id);
        const shown = await finalAttempts(org);
        assert.equal(shown.status, 'failed');
        assert.equal(shown.attempts.length, 2);
        for (const a of shown.attempts) {
          assert.equal(a.statusCode, 0);
          assert.match(a.error, reason);
        }
        assert.equal(trap.received.length, 0);
        assert.equal(allowed.received.length, 0);
      });
    }

    it('delivers over https to an allowed range and does not follow its redirect to loopback', async () => {
      const ok = await t.createOrg({ callbackUrl: `${allowed.url}/ok`, callbackVersion: 'V3' });
      await oneEvent(t, ok.id);
      assert.equal((await finalAttempts(ok)).status, 'delivered');
      assert.equal(allowed.at('/ok').length, 1);

      allowed.behave('/redirect', { redirectTo: `https://127.0.0.1:${port()}/redirected` });
      const redirected = await t.createOrg({
        callbackUrl: `${allowed.url}/redirect`,
        callbackVersion: 'V3',
      });
      await oneEvent(t, redirected.id);
      const shown = await finalAttempts(redirected);
      assert.equal(shown.status, 'failed');
      assert.deepEqual(
        shown.attempts.map((a) => a.statusCode),
        [302, 302],
      );
      assert.match(shown.attempts[0]?.error ?? '', /not followed/);
      assert.equal(trap.received.length, 0);
    });

    it('refuses a receiver whose certificate no trusted CA signed', async () => {
      // The same receiver, by a sender that was not given its CA (no NODE_EXTRA_CA_CERTS):
      // the handshake fails, so nothing is sent.
      await worker.stop();
      worker = workerFor(t);
      worker.start();
      const before = allowed.received.length;
      const org = await t.createOrg({
        callbackUrl: `${allowed.url}/untrusted`,
        callbackVersion: 'V3',
      });
      await oneEvent(t, org.id);
      const shown = await finalAttempts(org);
      assert.equal(shown.status, 'failed');
      for (const a of shown.attempts) {
        assert.equal(a.statusCode, 0);
        assert.match(a.error, /certificate/i);
      }
      assert.equal(allowed.received.length, before);
    });
  });
}
