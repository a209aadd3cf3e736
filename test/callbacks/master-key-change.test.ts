import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { setPassword } from '../../src/domain/access/set-password-links.js';
import { systemActor } from '../../src/domain/audit/audit-log.js';
import { addUser, rotateApiKey } from '../../src/domain/organisations/organisation-changes.js';
import type { AppDeps } from '../../src/deps.js';
import { createKeyCipher } from '../../src/security/api-keys.js';
import { createApiKeyCache } from '../../src/security/key-cache.js';
import { verifyCallbackSignature } from '../../src/verify.js';
import { DATABASES, eventually, startTestApp } from '../harness.js';
import type { TestApp } from '../harness.js';
import { startReceiver } from '../receiver.js';
import type { Receiver } from '../receiver.js';
import { recordUsage, snapshot } from './fixtures.js';
import type { CallbackWorker } from '../../src/workers/callback-delivery.js';
import { createCallbackWorker } from '../../src/workers/callback-delivery.js';
import { UNSIGNABLE_SKIP_SECONDS } from '../../src/workers/callback-stages.js';

// A master key change is a re-key (docs/operations.md, "The master key"): the service starts with
// the new MASTER_KEY, then every organisation's API key is rotated. Until an organisation's is,
// its stored key does not decrypt, so this instance cannot sign its V3 callbacks: it hands them
// back unsent, no attempt used, for an instance that can sign them, and leaves that organisation
// alone for a while; every other organisation's callbacks are delivered meanwhile (V2 needs no
// key), and so are its own once its key is rotated. The same holds for an instance started with
// a wrong MASTER_KEY. GET /organisation still answers the key presented, and the portal's API &
// callbacks page still opens.

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

/** The rotation dependencies of an app (its cipher seals the new key). */
const keyDeps = (deps: AppDeps) => ({
  db: deps.store.db,
  clock: deps.clock,
  random: deps.random,
  cipher: deps.cipher,
  apiKeys: deps.apiKeys,
});

for (const kind of DATABASES) {
  describe(`callbacks across a master key change [${kind}]`, () => {
    let base: TestApp | undefined;
    let hooks: Receiver | undefined;
    /** The same database served with another master key: the service after a re-key. */
    let rekeyed: TestApp;
    const log: string[] = [];
    const closing: (() => Promise<void>)[] = [];
    before(async () => {
      hooks = await startReceiver();
      base = await startTestApp(kind, {
        // A failed attempt would wait a minute of the service's clock.
        callbackRetryScheduleSeconds: [60, 60],
        callbackWorkerIntervalMs: 20,
        callbackBackoffMaxSeconds: 1,
        // An unanswered attempt would pause the endpoint at once: an attempt not sent for want of
        // a key says nothing of the receiver, and must not.
        callbackPauseAfter: 1,
      });
      const deps: AppDeps = { ...base.deps, cipher: createKeyCipher(Buffer.alloc(32, 9)) };
      const app = await buildApp(deps, {
        logLevel: 'error',
        logStream: { write: (line) => void log.push(line) },
      });
      closing.push(() => app.close());
      rekeyed = { ...base, app, deps };
    });
    after(async () => {
      for (const close of closing.reverse()) await close();
      await base?.close();
      await hooks?.close();
    });

    /** Starts a worker; the function that stops it, once, here or after the tests. */
    const started = (worker: CallbackWorker): (() => Promise<void>) => {
      worker.start();
      let stopping: Promise<void> | undefined;
      const stop = () => (stopping ??= worker.stop());
      closing.push(stop);
      return stop;
    };
    const inject = (key: string, url: string) =>
      rekeyed.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    const organisation = async (app: FastifyInstance, key: string) =>
      app.inject({ method: 'GET', url: '/v2.1/organisation', headers: { 'x-api-key': key } });
    const keyOf = (response: LightMyRequestResponse): string | undefined =>
      (response.json() as { organisations: { apiKey: string }[] }).organisations[0]?.apiKey;

    it('GET /organisation answers the key presented when the stored one does not decrypt', async () => {
      const t = base;
      assert.ok(t !== undefined);
      const org = await t.createOrg({});
      const current = await organisation(rekeyed.app, org.apiKey);
      assert.equal(current.statusCode, 200, current.body);
      assert.equal(keyOf(current), org.apiKey);

      // A key in its grace period reads itself, never its replacement; the replacement reads itself.
      const { apiKey: replacement } = await rotateApiKey(keyDeps(t.deps), org.id, 3600);
      const old = await organisation(rekeyed.app, org.apiKey);
      assert.equal(old.statusCode, 200, old.body);
      assert.equal(keyOf(old), org.apiKey);
      const fresh = await organisation(rekeyed.app, replacement);
      assert.equal(fresh.statusCode, 200, fresh.body);
      assert.equal(keyOf(fresh), replacement);

      // Another instance, which still holds a key as current from before a rotation made
      // elsewhere (its key memory is on a stopped clock, so it never looks again): the current
      // key is neither readable nor that caller's to learn.
      const stopped = new Date(t.clock.now().getTime());
      const clock = { now: () => new Date(stopped.getTime()) };
      const elsewhere: AppDeps = {
        ...rekeyed.deps,
        clock,
        apiKeys: createApiKeyCache({ db: t.deps.store.db, clock, stalenessMs: 10_000 }),
      };
      const other = await buildApp(elsewhere, { logLevel: 'silent' });
      closing.push(() => other.close());
      const remembered = await organisation(other, replacement);
      assert.equal(remembered.statusCode, 200, remembered.body);
      await rotateApiKey(keyDeps(t.deps), org.id, 0);
      const stale = await organisation(other, replacement);
      assert.equal(stale.statusCode, 409, stale.body);
      assert.match(
        (stale.json() as { message: string }).message,
        /current API key cannot be read with this server's MASTER_KEY.*rotate the key/,
      );
    });

    it("hands back unsent an organisation's callbacks it cannot sign, no attempt used", async () => {
      const t = base;
      const receiver = hooks;
      assert.ok(t !== undefined && receiver !== undefined);
      const deps = rekeyed.deps;
      const unrotated = await t.createOrg({
        callbackUrl: `${receiver.url}/unrotated`,
        callbackVersion: 'V3',
      });
      const waiting = await t.createOrg({
        callbackUrl: `${receiver.url}/waiting`,
        callbackVersion: 'V3',
      });
      const unsigned = await t.createOrg({
        callbackUrl: `${receiver.url}/unsigned`,
        callbackVersion: 'V2',
      });
      const rotated = await t.createOrg({
        callbackUrl: `${receiver.url}/rotated`,
        callbackVersion: 'V3',
      });
      const { apiKey: newKey } = await rotateApiKey(keyDeps(deps), rotated.id, 0);
      // One event per eSIM; the unrotated organisation has two. The first claim takes them all.
      const events: [string, string][] = [
        [unrotated.id, '890000000000000010'],
        [unrotated.id, '890000000000000011'],
        [waiting.id, '890000000000000012'],
        [unsigned.id, '890000000000000013'],
        [rotated.id, '890000000000000014'],
      ];
      for (const [organisationId, iccid] of events) {
        await recordUsage(rekeyed, organisationId, snapshot({ usedBytes: 10_000_000 }), 0, {
          iccid,
        });
      }
      const warnings: string[] = [];
      // What the worker counts and times (the Prometheus metrics): only attempts made.
      const observed: string[] = [];
      const stopWorker = started(
        createCallbackWorker(
          deps,
          { warn: (_fields: unknown, message: string) => void warnings.push(message) },
          { metrics: { observeCallbackAttempt: (outcome) => void observed.push(outcome) } },
        ),
      );

      await eventually(async () =>
        receiver.at('/unsigned').length === 1 && receiver.at('/rotated').length === 1
          ? true
          : undefined,
      );
      const [signed] = receiver.at('/rotated');
      assert.ok(
        signed !== undefined &&
          verifyCallbackSignature(
            signed.rawBody,
            String(signed.headers['x-signature-sha256']),
            newKey,
          ),
      );
      const handedBack = (id: string) =>
        warnings.filter((line) =>
          new RegExp(
            `^callbacks not sent by this instance for .*${id}.*: the organisation's API key does not decrypt with this MASTER_KEY.*handed back unsent, no attempt used`,
          ).test(line),
        );
      await eventually(async () =>
        handedBack(unrotated.id).length > 0 && handedBack(waiting.id).length > 0 ? true : undefined,
      );
      // Once per claim, not once per event: both of the unrotated organisation's events in one line.
      assert.equal(handedBack(unrotated.id).length, 1, warnings.join('\n'));
      assert.ok(
        !warnings.some((line) => line.startsWith('callback delivery failed')),
        warnings.join('\n'),
      );

      // Its callbacks wait unsent, no attempt used, its endpoint neither backed off nor paused.
      const listed = await inject(unrotated.apiKey, '/v2.1/callbacks');
      assert.equal(listed.statusCode, 200, listed.body);
      const deliveries = (listed.json() as { callbacks: { id: string }[] }).callbacks;
      assert.equal(deliveries.length, 2);
      for (const delivery of deliveries) {
        const one = await inject(unrotated.apiKey, `/v2.1/callbacks/${delivery.id}`);
        const detail = one.json() as { status: string; attempts: unknown[] };
        assert.equal(detail.status, 'pending');
        assert.deepEqual(detail.attempts, []);
      }
      assert.equal(receiver.at('/unrotated').length, 0, 'nothing unsigned is sent');

      // One organisation rotated: once this instance looks again, its callback is signed with the
      // new key and delivered, as a first attempt.
      const { apiKey: waitingNewKey } = await rotateApiKey(keyDeps(deps), waiting.id, 0);
      t.clock.advance(UNSIGNABLE_SKIP_SECONDS + 1);
      const [late] = await eventually(async () =>
        receiver.at('/waiting').length === 1 ? receiver.at('/waiting') : undefined,
      );
      assert.ok(
        late !== undefined &&
          verifyCallbackSignature(
            late.rawBody,
            String(late.headers['x-signature-sha256']),
            waitingNewKey,
          ),
      );
      assert.equal(late.headers['x-delivery-attempt'], '1');
      await stopWorker();
      // Three sends, each delivered; nothing counted or timed for what was never sent.
      assert.deepEqual(observed, ['delivered', 'delivered', 'delivered']);

      // An instance that can read the unrotated organisation's key (its own master key) sends its
      // callbacks at once, each as a first attempt: nothing was used up.
      const stopKeyed = started(createCallbackWorker(t.deps, { warn: () => undefined }));
      const sent = await eventually(async () =>
        receiver.at('/unrotated').length === 2 ? receiver.at('/unrotated') : undefined,
      );
      for (const request of sent) {
        assert.equal(request.headers['x-delivery-attempt'], '1');
        assert.ok(
          verifyCallbackSignature(
            request.rawBody,
            String(request.headers['x-signature-sha256']),
            unrotated.apiKey,
          ),
        );
      }
      await stopKeyed();
    });

    it('the portal opens the API page for a key it cannot read, and rotates it', async () => {
      const t = base;
      assert.ok(t !== undefined);
      const portalOrg = await t.createOrg({});
      const admin = await addUser(keyDeps(t.deps), portalOrg.id, {
        email: 'admin@rekey.test',
        firstName: 'Re',
        lastName: 'Key',
        role: 'Admin',
        timeZone: 'UTC',
      });
      await setPassword(t.deps, systemActor, admin, PASSWORD);
      const app = rekeyed.app;
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
      const read = await organisation(app, shown);
      assert.equal(read.statusCode, 200);
      assert.equal(keyOf(read), shown);
    });

    it('a snapshot export is a 409 naming an organisation whose key it cannot read', async () => {
      const t = base;
      assert.ok(t !== undefined);
      await t.createOrg({});
      const saved = await rekeyed.app.inject({ url: '/_sim/snapshot' });
      assert.equal(saved.statusCode, 409, saved.body);
      assert.match(
        (saved.json() as { message: string }).message,
        /^the API key of organisation \S+ cannot be read with this simulator's MASTER_KEY.*rotate the key/,
      );
    });
  });
}
