import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { LookupAddress } from 'node:dns';
import { after, before, describe, it } from 'node:test';
import type { Resolver } from '../../src/callbacks/address-guard.js';
import type { CallbackWorker } from '../../src/workers/callback-delivery.js';
import { DomainError } from '../../src/domain/errors/error-codes.js';
import { updateOrganisationSettings } from '../../src/domain/organisations/organisation-changes.js';
import { deliveries, oneEvent, workerFor } from '../callbacks/fixtures.js';
import { DATABASES, eventually, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { startReceiver } from '../receiver.js';
import type { Receiver } from '../receiver.js';

// The callback address guard of production mode, with the DNS answers under the test's control
// (the resolver is injected, as openServices allows): a name that resolves to loopback, one that
// resolves to a private address, one with a mixed answer, and a name whose answer changes between
// save and delivery (DNS rebinding). The guard checks every answer at save time and again on
// every connection, and the socket connects to exactly the address that was checked.
//
// test/fixtures/tls holds a certificate for localhost, 127.0.0.1 and 127.0.0.2. The name the
// tests rebind is `localhost`, so TLS verifies whichever address the fake DNS gives; 127.0.0.2 is
// opened with CALLBACK_ALLOW_CIDRS and plays a public receiver, 127.0.0.1 is the trap.

const tls = {
  key: readFileSync(new URL('../fixtures/tls/receiver-key.pem', import.meta.url)),
  cert: readFileSync(new URL('../fixtures/tls/receiver-cert.pem', import.meta.url)),
};

interface FakeDns {
  readonly resolver: Resolver;
  /** The standing answer of each name. */
  readonly answers: Map<string, string[]>;
  /** One-off answers, given (first in, first out) before the standing one. */
  readonly queued: Map<string, string[][]>;
  /** Every name asked, in order. */
  readonly asked: string[];
}

/** A resolver answering from tables the test edits, recording the questions. */
function fakeDns(): FakeDns {
  const answers = new Map<string, string[]>();
  const queued = new Map<string, string[][]>();
  const asked: string[] = [];
  const resolver: Resolver = async (hostname) => {
    asked.push(hostname);
    const found = queued.get(hostname)?.shift() ?? answers.get(hostname);
    if (found === undefined) {
      const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      error.code = 'ENOTFOUND';
      throw error;
    }
    return found.map((address): LookupAddress => ({
      address,
      family: address.includes(':') ? 6 : 4,
    }));
  };
  return { resolver, answers, queued, asked };
}

for (const kind of DATABASES) {
  describe(`security: callback address guard with an injected resolver [${kind}]`, () => {
    const dns = fakeDns();
    let t: TestApp;
    let org: TestOrg;
    let trap: Receiver; // 127.0.0.1: must never receive anything
    let allowed: Receiver; // 127.0.0.2, same port: the "public" receiver

    before(async () => {
      allowed = await startReceiver({ host: '127.0.0.2', tls });
      trap = await startReceiver({
        host: '127.0.0.1',
        port: Number(new URL(allowed.url).port),
        tls,
      });
      t = await startTestApp(
        kind,
        {
          mode: 'production',
          callbackAllowCidrs: ['127.0.0.2/32'],
          callbackRetryScheduleSeconds: [0.05],
          callbackWorkerIntervalMs: 20,
          // The refused deliveries back the endpoint off: for a second at most here.
          callbackBackoffMaxSeconds: 1,
        },
        { resolver: dns.resolver },
      );
      org = await t.createOrg({ name: 'Rebinder', callbackVersion: 'V3' });
    });
    after(async () => {
      await t.close();
      await trap.close();
      await allowed.close();
    });

    /** Saves a callback URL the way the portal and `esim org update` do; the 400 message or ''. */
    const save = async (url: string): Promise<string> => {
      const { clock, random, cipher } = t.deps;
      try {
        await updateOrganisationSettings(
          { db: t.deps.store.db, clock, random, cipher, apiKeys: t.deps.apiKeys },
          org.id,
          { callbackUrl: url },
          t.deps.checkCallbackUrl,
        );
        return '';
      } catch (error) {
        assert.ok(error instanceof DomainError, String(error));
        assert.equal(error.status, 400);
        return error.message;
      }
    };

    const savedUrl = async (): Promise<string> => {
      const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/organisation' });
      return res.json().organisations[0].callbackUrl;
    };

    it('refuses at save time a name that resolves to loopback, private or mixed addresses', async () => {
      dns.answers.set('loop.callbacks.test', ['127.0.0.1']);
      dns.answers.set('loop6.callbacks.test', ['::1']);
      dns.answers.set('private.callbacks.test', ['10.20.30.40']);
      dns.answers.set('mapped.callbacks.test', ['::ffff:192.168.1.1']);
      dns.answers.set('metadata.callbacks.test', ['169.254.169.254']);
      dns.answers.set('mixed.callbacks.test', ['93.184.215.14', '172.16.0.9']);
      const cases: [string, RegExp][] = [
        ['loop', /loop\.callbacks\.test resolves to 127\.0\.0\.1, a loopback address/],
        ['loop6', /resolves to ::1, a loopback address/],
        ['private', /resolves to 10\.20\.30\.40, a private address/],
        ['mapped', /resolves to ::ffff:192\.168\.1\.1, a private address/],
        ['metadata', /resolves to 169\.254\.169\.254, a cloud metadata address/],
        ['mixed', /resolves to 172\.16\.0\.9, a private address/],
      ];
      for (const [name, reason] of cases) {
        const message = await save(`https://${name}.callbacks.test/hook`);
        assert.match(message, /^callbackUrl is refused: /);
        assert.match(message, reason);
        // An organisation's user reads it (the portal shows it): it names no operator's setting.
        assert.match(
          message,
          /; callbacks are only sent to public addresses, unless the service's operator allows a private range$/,
        );
        assert.doesNotMatch(message, /CALLBACK_ALLOW_CIDRS/);
      }
      assert.match(await save('https://nowhere.callbacks.test/hook'), /does not resolve/);
      assert.equal(await savedUrl(), '');

      dns.answers.set('public.callbacks.test', ['93.184.215.14']);
      assert.equal(await save('https://public.callbacks.test/hook'), '');
      assert.equal(await savedUrl(), 'https://public.callbacks.test/hook');
    });

    /** Delivers the organisation's next new event with a fresh worker (no pooled connection). */
    const deliverNext = async (): Promise<{ status: string; errors: string[] }> => {
      const seen = new Set((await deliveries(t, org.apiKey)).map((d) => d.id));
      await oneEvent(t, org.id);
      const worker: CallbackWorker = workerFor(t, { ca: tls.cert });
      worker.start();
      try {
        const d = await eventually(async () => {
          const fresh = (await deliveries(t, org.apiKey)).find((x) => !seen.has(x.id));
          return fresh !== undefined && (fresh.status === 'delivered' || fresh.status === 'failed')
            ? fresh
            : undefined;
        });
        const res = await t.request(org.apiKey, { method: 'GET', url: `/v2.1/callbacks/${d.id}` });
        const shown = res.json() as { status: string; attempts: { error: string }[] };
        return { status: shown.status, errors: shown.attempts.map((a) => a.error) };
      } finally {
        await worker.stop();
      }
    };

    it('refuses at delivery a name whose answer changed to loopback after it was saved (rebinding)', async () => {
      const url = `https://localhost:${new URL(allowed.url).port}/hook`;
      // Saved while the name pointed at the public receiver, and delivered there.
      dns.answers.set('localhost', ['127.0.0.2']);
      assert.equal(await save(url), '');
      const first = await deliverNext();
      assert.equal(first.status, 'delivered', first.errors.join('; '));
      assert.equal(allowed.at('/hook').length, 1);

      // The name now answers loopback (or a private address): every connection attempt is
      // refused before anything is sent.
      const rebound: [string, string][] = [
        ['127.0.0.1', 'a loopback address'],
        ['192.168.10.10', 'a private address'],
      ];
      for (const [address, category] of rebound) {
        dns.answers.set('localhost', [address]);
        dns.asked.length = 0;
        const second = await deliverNext();
        assert.equal(second.status, 'failed');
        assert.equal(second.errors.length, 2, 'the first attempt and its one retry');
        for (const error of second.errors) {
          assert.equal(
            error,
            `refused to connect: localhost resolves to ${address} is ${category}`,
          );
        }
        assert.equal(dns.asked.filter((h) => h === 'localhost').length, 2, 'asked per attempt');
      }
      assert.equal(trap.received.length, 0);
      assert.equal(allowed.at('/hook').length, 1);
    });

    it('connects to the address it checked, never to a second answer', async () => {
      // The name answers public once, then loopback: a sender that checked the first answer
      // and let the socket resolve the name again would reach the trap.
      const url = `https://localhost:${new URL(allowed.url).port}/checked`;
      dns.answers.set('localhost', ['127.0.0.2']);
      assert.equal(await save(url), '');
      dns.answers.set('localhost', ['127.0.0.1']);
      dns.queued.set('localhost', [['127.0.0.2']]);
      dns.asked.length = 0;
      const delivered = await deliverNext();
      assert.equal(delivered.status, 'delivered', delivered.errors.join('; '));
      assert.deepEqual(dns.asked, ['localhost'], 'one question for the one connection');
      assert.equal(allowed.at('/checked').length, 1);
      assert.equal(trap.received.length, 0);
    });
  });
}
