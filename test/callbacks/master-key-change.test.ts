import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { setPassword } from '../../src/domain/access/set-password-links.js';
import { systemActor } from '../../src/domain/audit/audit-log.js';
import { addUser, rotateApiKey } from '../../src/domain/organisations/organisation-changes.js';
import type { AppDeps } from '../../src/deps.js';
import { createKeyCipher } from '../../src/security/api-keys.js';
import { verifyCallbackSignature } from '../../src/verify.js';
import { DATABASES, eventually, startTestApp } from '../harness.js';
import type { TestApp } from '../harness.js';
import { startReceiver } from '../receiver.js';
import type { Receiver } from '../receiver.js';
import { recordUsage, snapshot } from './fixtures.js';
import { createCallbackWorker } from '../../src/workers/callback-delivery.js';

// A master key change is a re-key (docs/operations.md, "The master key"): the service starts with
// the new MASTER_KEY, then every organisation's API key is rotated. Until an organisation's is,
// its stored key does not decrypt, so its V3 callbacks cannot be signed: those attempts fail,
// with the reason, and are retried; every other organisation's callbacks are delivered meanwhile
// (V2 needs no key), and so are its own once its key is rotated. The same holds for an instance
// started with a wrong MASTER_KEY.

const PASSWORD = 'rekey password 1234';

function cookieOf(response: LightMyRequestResponse, name: string): string {
  const cookie = response.cookies.find((c) => c.name === name);
  return `${name}=${cookie?.value ?? ''}`;
}

function csrfOf(page: string): string {
  return /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
}

/** Signs in through the portal's form; the session cookie header. */
async function signIn(app: FastifyInstance, email: string): Promise<string> {
  const form = await app.inject({ method: 'GET', url: '/portal/sign-in' });
  const signedIn = await app.inject({
    method: 'POST',
    url: '/portal/sign-in',
    headers: {
      cookie: cookieOf(form, 'esim_csrf'),
      'content-type': 'application/x-www-form-urlencoded',
    },
    payload: new URLSearchParams({
      _csrf: csrfOf(form.body),
      email,
      password: PASSWORD,
    }).toString(),
  });
  assert.equal(signedIn.statusCode, 303, signedIn.body);
  return cookieOf(signedIn, 'esim_session');
}

for (const kind of DATABASES) {
  describe(`callbacks across a master key change [${kind}]`, () => {
    let t: TestApp | undefined;
    let receiver: Receiver | undefined;
    const closing: (() => Promise<void>)[] = [];
    after(async () => {
      for (const close of closing.reverse()) await close();
      await t?.close();
      await receiver?.close();
    });

    it('an unreadable key fails only its own V3 attempts, until the key is rotated', async () => {
      const hooks = await startReceiver();
      receiver = hooks;
      const before = await startTestApp(kind, {
        // A failed attempt waits a minute of the service's clock, which the test moves on.
        callbackRetryScheduleSeconds: [60, 60],
        callbackWorkerIntervalMs: 20,
        callbackBackoffMaxSeconds: 1,
        // An unanswered attempt would pause the endpoint at once: an attempt not sent for want of
        // a key says nothing of the receiver, and must not.
        callbackPauseAfter: 1,
      });
      t = before;
      const unrotated = await before.createOrg({
        callbackUrl: `${hooks.url}/unrotated`,
        callbackVersion: 'V3',
      });
      const unsigned = await before.createOrg({
        callbackUrl: `${hooks.url}/unsigned`,
        callbackVersion: 'V2',
      });
      const rotated = await before.createOrg({
        callbackUrl: `${hooks.url}/rotated`,
        callbackVersion: 'V3',
      });

      const portalOrg = await before.createOrg({});
      const admin = await addUser(
        {
          db: before.deps.store.db,
          clock: before.deps.clock,
          random: before.deps.random,
          cipher: before.deps.cipher,
        },
        portalOrg.id,
        {
          email: 'admin@rekey.test',
          firstName: 'Re',
          lastName: 'Key',
          role: 'Admin',
          timeZone: 'UTC',
        },
      );
      await setPassword(before.deps, systemActor, admin, PASSWORD);

      // An instance with another master key on the same database: the service after a re-key.
      const deps: AppDeps = { ...before.deps, cipher: createKeyCipher(Buffer.alloc(32, 9)) };
      const log: string[] = [];
      const app = await buildApp(deps, {
        logLevel: 'error',
        logStream: { write: (line) => void log.push(line) },
      });
      closing.push(() => app.close());
      const rekeyed: TestApp = { ...before, app, deps };
      const { apiKey: newKey } = await rotateApiKey(
        {
          db: deps.store.db,
          clock: deps.clock,
          random: deps.random,
          cipher: deps.cipher,
          apiKeys: deps.apiKeys,
        },
        rotated.id,
        0,
      );
      // One event each (each organisation's own eSIM), claimed together by the first turn.
      for (const [index, org] of [unrotated, unsigned, rotated].entries()) {
        const iccid = `89440000000000001${index}`;
        await recordUsage(rekeyed, org.id, snapshot({ usedBytes: 10_000_000 }), 0, { iccid });
      }
      const warnings: string[] = [];
      const worker = createCallbackWorker(deps, {
        warn: (_fields: unknown, message: string) => void warnings.push(message),
      });
      worker.start();
      closing.push(() => worker.stop());

      await eventually(async () =>
        hooks.at('/unsigned').length === 1 && hooks.at('/rotated').length === 1 ? true : undefined,
      );
      const [signed] = hooks.at('/rotated');
      assert.ok(
        signed !== undefined &&
          verifyCallbackSignature(
            signed.rawBody,
            String(signed.headers['x-signature-sha256']),
            newKey,
          ),
      );

      // The organisation whose key was not rotated: its attempts fail with the reason, unsent.
      const detail = async () => {
        const listed = await app.inject({
          method: 'GET',
          url: '/v2.1/callbacks',
          headers: { 'x-api-key': unrotated.apiKey },
        });
        assert.equal(listed.statusCode, 200, listed.body);
        const [delivery] = (listed.json() as { callbacks: { id: string }[] }).callbacks;
        const one = await app.inject({
          method: 'GET',
          url: `/v2.1/callbacks/${delivery?.id ?? ''}`,
          headers: { 'x-api-key': unrotated.apiKey },
        });
        return one.json() as {
          status: string;
          attempts: { error: string; statusCode: number }[];
        };
      };
      const failing = await eventually(async () => {
        const d = await detail();
        return d.attempts.length >= 1 ? d : undefined;
      });
      assert.equal(failing.status, 'pending');
      assert.match(failing.attempts[0]?.error ?? '', /does not decrypt with this MASTER_KEY/);
      assert.equal(hooks.at('/unrotated').length, 0, 'nothing unsigned is sent');
      // Its key still authenticates (by hash), but GET /organisation cannot return it.
      const organisation = await app.inject({
        method: 'GET',
        url: '/v2.1/organisation',
        headers: { 'x-api-key': unrotated.apiKey },
      });
      assert.equal(organisation.statusCode, 500);
      assert.doesNotMatch(organisation.body, /MASTER_KEY|decrypt/, 'no internals in the body');
      assert.ok(
        log.some((line) => line.includes('API key does not decrypt with this MASTER_KEY')),
        log.join(''),
      );
      assert.ok(
        warnings.some((line) =>
          /^callback delivery failed: .*not sent: the organisation's API key does not decrypt with this MASTER_KEY/.test(
            line,
          ),
        ),
        warnings.join('\n'),
      );

      // The portal's API & callbacks page still opens for an Admin, who can rotate the key there.
      const session = await signIn(app, 'admin@rekey.test');
      const page = await app.inject({
        method: 'GET',
        url: '/portal/api',
        headers: { cookie: session },
      });
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /unreadable with this server(&#39;|')s master key: rotate the key/);
      const csrf = csrfOf(page.body);
      const reveal = await app.inject({
        method: 'POST',
        url: '/portal/api/key/reveal',
        headers: { cookie: session, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: csrf, confirm: 'yes' }).toString(),
      });
      assert.equal(reveal.statusCode, 409);
      const rotation = await app.inject({
        method: 'POST',
        url: '/portal/api/key/rotate',
        headers: { cookie: session, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          _csrf: csrf,
          reason: 'leak',
          grace: 'default',
          confirmRotate: 'yes',
        }).toString(),
      });
      assert.equal(rotation.statusCode, 200, rotation.body);
      const shown = /esim_[\w-]{43}/.exec(rotation.body)?.[0];
      assert.ok(shown !== undefined, 'the new key is shown once');
      const read = await app.inject({
        method: 'GET',
        url: '/v2.1/organisation',
        headers: { 'x-api-key': shown },
      });
      assert.equal(read.statusCode, 200);

      // Rotated, its next attempt is signed with the new key and delivered.
      const { apiKey: unrotatedNewKey } = await rotateApiKey(
        {
          db: deps.store.db,
          clock: deps.clock,
          random: deps.random,
          cipher: deps.cipher,
          apiKeys: deps.apiKeys,
        },
        unrotated.id,
        0,
      );
      before.clock.advance(61);
      const [late] = await eventually(async () =>
        hooks.at('/unrotated').length === 1 ? hooks.at('/unrotated') : undefined,
      );
      assert.ok(
        late !== undefined &&
          verifyCallbackSignature(
            late.rawBody,
            String(late.headers['x-signature-sha256']),
            unrotatedNewKey,
          ),
      );
    });
  });
}
