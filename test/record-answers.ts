// Records what the service answers to a fixed sequence of requests, to compare two builds of the
// code: every API operation (the typed-client calls of test/client/calls.ts) with an error case
// each, the portal's pages and forms, and the CLI's commands, on a fresh simulator database
// (SQLite, SIM_SEED=42); then each later version's shapes (test/record-versions.ts).
//
//   npx tsx test/record-answers.ts record <file.json>
//   npx tsx test/record-answers.ts compare <before.json> <after.json>
//
// What differs between two runs of the same code is normalised when comparing: times and dates
// (the simulator clock is wall time plus an offset), ICCIDs, ids, API keys, tokens and CSRF
// values (each replaced by a placeholder numbered by first appearance, so that two answers naming
// the same id still do), and binary bodies (ZIP files carry their creation time), compared by
// length; measured durations, callback signatures and password hashes are masked. Everything else
// must be byte-identical.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import createClient from 'openapi-fetch';
import { buildApp } from '../src/app.js';
import { main } from '../src/cli/main.js';
import { loadConfig } from '../src/config.js';
import { openServices } from '../src/main.js';
import { createCallbackWorker } from '../src/workers/callback-delivery.js';
import type { CallContext } from './client/calls.js';
import { CALLS } from './client/calls.js';
import type { paths } from 'esim-bundle-service-client/v2.1';
import { startReceiver } from './receiver.js';
import { recordLaterVersions } from './record-versions.js';

interface Answer {
  step: string;
  status: number | string;
  type?: string;
  location?: string;
  body: string;
}

type Env = Record<string, string | undefined>;

async function record(file: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'esim-record-'));
  const env: Env = {
    MODE: 'simulator',
    DATABASE_URL: `sqlite:${join(dir, 'esim.sqlite')}`,
    DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    SIM_SEED: '42',
    PAYMENT_LATENCY_MS: '0',
  };
  const answers: Answer[] = [];
  const cli = async (step: string, argv: string[], stdin?: string): Promise<string> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(argv, env, {
      out: (line) => void out.push(line),
      err: (line) => void err.push(line),
      ...(stdin === undefined ? {} : { readStdin: () => Promise.resolve(stdin) }),
    });
    const body = `${out.join('\n')}\n--stderr--\n${err.join('\n')}`;
    answers.push({ step: `cli ${step}`, status: code, body });
    if (process.env['RECORD_VERBOSE'] === '1') console.log(step, code, body);
    return out.join('\n');
  };

  const receiver = await startReceiver();
  await cli('migrate', ['migrate']);
  await cli('help', ['--help']);
  await cli('unknown command', ['frobnicate']);
  await cli('org create without name', ['org', 'create']);
  const created = JSON.parse(
    await cli('org create', [
      'org',
      'create',
      '--name',
      'Acme Travel',
      '--balance',
      '1000000',
      '--callback-url',
      `${receiver.url}/hook`,
      '--callback-version',
      'V3',
      '--json',
    ]),
  ) as { id: string; apiKey: string };
  const orgId = created.id;
  await cli(
    'user add',
    [
      'user',
      'add',
      orgId,
      '--email',
      'ada@acme.example',
      '--first-name',
      'Ada',
      '--last-name',
      'Lovelace',
      '--role',
      'Admin',
      '--password-stdin',
    ],
    'correct horse battery staple\n',
  );
  await cli('user add bad role', [
    'user',
    'add',
    orgId,
    '--email',
    'x@acme.example',
    '--first-name',
    'X',
    '--last-name',
    'Y',
    '--role',
    'Boss',
  ]);

  const services = await openServices(loadConfig(env));
  const app = await buildApp(services.deps, { logLevel: 'silent' });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const worker = createCallbackWorker(services.deps, { warn: () => undefined });
  const raw = async (step: string, path: string, init: RequestInit = {}): Promise<Response> => {
    const response = await fetch(`${address}${path}`, { redirect: 'manual', ...init });
    const type = response.headers.get('content-type') ?? '';
    const bytes = Buffer.from(await response.clone().arrayBuffer());
    const binary = !/^(application\/json|text\/)/.test(type) && bytes.length > 0;
    answers.push({
      step,
      status: response.status,
      type,
      ...(response.headers.get('location') === null
        ? {}
        : { location: response.headers.get('location') ?? '' }),
      body: binary ? `<binary ${bytes.length} bytes>` : bytes.toString('utf8'),
    });
    return response;
  };
  const key = { 'X-API-Key': created.apiKey };
  const json = { ...key, 'content-type': 'application/json' };
  try {
    // Every operation, as an integrator's typed client calls it.
    const document = (await (await fetch(`${address}/v2.1/openapi.json`)).json()) as {
      servers?: { url: string }[];
    };
    const context: CallContext = {
      client: createClient<paths>({
        baseUrl: new URL(document.servers?.[0]?.url ?? '', address).toString().replace(/\/$/, ''),
        headers: key,
      }),
      deliverCallbacks: () => worker.drain(),
      bundle: '',
      orderReference: '',
      applyReference: '',
      iccid: '',
      usageId: 0,
      assignmentIds: [],
      callbackId: '',
      faultId: '',
    };
    for (const [id, call] of CALLS) {
      if (id === 'simReset') continue; // at the end, after the portal has read the state
      const result = await call(context);
      answers.push({
        step: `api ${id}`,
        status: result.response.status,
        type: result.response.headers.get('content-type') ?? '',
        body: shown(result.data ?? result.error),
      });
    }
    const { iccid, bundle, orderReference, callbackId } = context;

    // An error case of every operation.
    const errors: [string, string, RequestInit][] = [
      ['no key', '/v2.1/organisation', {}],
      ['wrong key', '/v2.1/organisation', { headers: { 'X-API-Key': 'esim_wrong' } }],
      [
        'top-up bad amount',
        '/v2.1/organisation/balance?amount=abc',
        { method: 'POST', headers: key },
      ],
      ['top-up no amount', '/v2.1/organisation/balance', { method: 'POST', headers: key }],
      ['groups no key', '/v2.1/organisation/groups', {}],
      ['catalogue bad country', '/v2.1/catalogue?countries=XX', { headers: key }],
      ['catalogue bad perPage', '/v2.1/catalogue?perPage=0', { headers: key }],
      ['bundle unknown', '/v2.1/catalogue/bundle/esim_none', { headers: key }],
      ['networks no country', '/v2.1/networks', { headers: key }],
      ['networks bad country', '/v2.1/networks?countries=Atlantis', { headers: key }],
      ['order bad json', '/v2.1/orders', { method: 'POST', headers: json, body: '{' }],
      [
        'order bad type',
        '/v2.1/orders',
        { method: 'POST', headers: json, body: '{"type":"x","order":[]}' },
      ],
      [
        'order unknown bundle',
        '/v2.1/orders',
        {
          method: 'POST',
          headers: json,
          body: JSON.stringify({
            type: 'transaction',
            order: [{ type: 'bundle', item: 'esim_none', quantity: 1 }],
          }),
        },
      ],
      [
        'order too many',
        '/v2.1/orders',
        {
          method: 'POST',
          headers: json,
          body: JSON.stringify({
            type: 'transaction',
            order: [{ type: 'bundle', item: bundle, quantity: 100000 }],
          }),
        },
      ],
      [
        'order validate',
        '/v2.1/orders',
        {
          method: 'POST',
          headers: json,
          body: JSON.stringify({
            type: 'validate',
            order: [{ type: 'bundle', item: bundle, quantity: 1 }],
          }),
        },
      ],
      [
        'order bad content type',
        '/v2.1/orders',
        { method: 'POST', headers: { ...key, 'content-type': 'text/plain' }, body: 'x' },
      ],
      [
        'order bad idempotency key',
        '/v2.1/orders',
        { method: 'POST', headers: { ...json, 'Idempotency-Key': '' }, body: '{}' },
      ],
      ['orders bad page', '/v2.1/orders?page=0', { headers: key }],
      ['order unknown', '/v2.1/orders/00000000-0000-0000-0000-000000000000', { headers: key }],
      ['order bad reference', '/v2.1/orders/nope', { headers: key }],
      ['inventory no key', '/v2.1/inventory', {}],
      [
        'refund unknown batch',
        '/v2.1/inventory/refund',
        { method: 'POST', headers: json, body: JSON.stringify({ usageId: 999999, quantity: 1 }) },
      ],
      ['refund bad body', '/v2.1/inventory/refund', { method: 'POST', headers: json, body: '{}' }],
      [
        'apply unknown bundle',
        '/v2.1/esims/apply',
        { method: 'POST', headers: json, body: JSON.stringify({ name: 'esim_none', iccid }) },
      ],
      [
        'apply empty inventory',
        '/v2.1/esims/apply',
        { method: 'POST', headers: json, body: JSON.stringify({ name: bundle, iccid, repeat: 1 }) },
      ],
      [
        'update esims bad body',
        '/v2.1/esims',
        { method: 'PUT', headers: json, body: '{"esims":5}' },
      ],
      ['esims bad filter', '/v2.1/esims?perPage=1000', { headers: key }],
      ['esim bad iccid', '/v2.1/esims/123', { headers: key }],
      ['esim unknown', '/v2.1/esims/8900000000000000000', { headers: key }],
      ['esim again', `/v2.1/esims/${iccid}`, { headers: key }],
      [
        'esim with extra',
        `/v2.1/esims/${iccid}?additionalFields=appliedBundles,location`,
        { headers: key },
      ],
      ['history unknown', '/v2.1/esims/8900000000000000000/history', { headers: key }],
      ['bundles unknown', '/v2.1/esims/8900000000000000000/bundles', { headers: key }],
      ['bundle on esim unknown', `/v2.1/esims/${iccid}/bundles/esim_none`, { headers: key }],
      ['location unknown', '/v2.1/esims/8900000000000000000/location', { headers: key }],
      ['refresh unknown', '/v2.1/esims/8900000000000000000/refresh', { headers: key }],
      ['install data unknown', '/v2.1/esims/install?reference=nope', { headers: key }],
      [
        'sms empty',
        `/v2.1/esims/${iccid}/sms`,
        { method: 'POST', headers: json, body: JSON.stringify({ message: '' }) },
      ],
      [
        'sms bad sender',
        `/v2.1/esims/${iccid}/sms`,
        { method: 'POST', headers: json, body: JSON.stringify({ message: 'hi', from: 'Mallory' }) },
      ],
      [
        'revoke unknown assignment',
        `/v2.1/esims/${iccid}/bundles/${bundle}/assignments/999999`,
        { method: 'DELETE', headers: key },
      ],
      [
        'revoke by name none left',
        `/v2.1/esims/${iccid}/bundles/${bundle}?type=validate`,
        { method: 'DELETE', headers: key },
      ],
      ['callbacks bad status', '/v2.1/callbacks?status=lost', { headers: key }],
      [
        'callback unknown',
        '/v2.1/callbacks/00000000-0000-0000-0000-000000000000',
        { headers: key },
      ],
      [
        'callback resend unknown',
        '/v2.1/callbacks/00000000-0000-0000-0000-000000000000/resend',
        { method: 'POST', headers: key },
      ],
      ['callback again', `/v2.1/callbacks/${callbackId}`, { headers: key }],
      [
        'sim install unknown',
        '/_sim/esims/8900000000000000000/install',
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
      ],
      [
        'sim attach bad',
        `/_sim/esims/${iccid}/attach`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"country":"ZZ"}',
        },
      ],
      [
        'sim usage bad',
        `/_sim/esims/${iccid}/usage`,
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"bytes":-1}' },
      ],
      [
        'sim advance bad',
        '/_sim/clock/advance',
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"seconds":-5}' },
      ],
      [
        'sim processing bad',
        '/_sim/processing',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"delaySeconds":100000}',
        },
      ],
      [
        'sim fault bad',
        '/_sim/faults',
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"route":""}' },
      ],
      ['unknown route', '/v2.1/nothing', { headers: key }],
      ['method not allowed', '/v2.1/catalogue', { method: 'DELETE', headers: key }],
      [
        'order replay',
        '/v2.1/orders',
        {
          method: 'POST',
          headers: { ...json, 'Idempotency-Key': 'record-1' },
          body: JSON.stringify({
            type: 'transaction',
            order: [{ type: 'bundle', item: bundle, quantity: 1 }],
          }),
        },
      ],
      [
        'order replay again',
        '/v2.1/orders',
        {
          method: 'POST',
          headers: { ...json, 'Idempotency-Key': 'record-1' },
          body: JSON.stringify({
            type: 'transaction',
            order: [{ type: 'bundle', item: bundle, quantity: 1 }],
          }),
        },
      ],
      [
        'order replay other',
        '/v2.1/orders',
        {
          method: 'POST',
          headers: { ...json, 'Idempotency-Key': 'record-1' },
          body: JSON.stringify({
            type: 'transaction',
            order: [{ type: 'bundle', item: bundle, quantity: 2 }],
          }),
        },
      ],
      [
        'top-up replay',
        '/v2.1/organisation/balance?amount=2000',
        { method: 'POST', headers: { ...key, 'Idempotency-Key': 'record-2' } },
      ],
      [
        'top-up replay again',
        '/v2.1/organisation/balance?amount=2000',
        { method: 'POST', headers: { ...key, 'Idempotency-Key': 'record-2' } },
      ],
      [
        'refund over',
        '/v2.1/inventory/refund',
        {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ usageId: context.usageId, quantity: 1000 }),
        },
      ],
      ['order get', `/v2.1/orders/${orderReference}`, { headers: key }],
    ];
    for (const [name, path, init] of errors) await raw(`api error ${name}`, path, init);

    // The portal, signed in as the organisation's Admin.
    const jar = new Map<string, string>();
    const cookieHeader = (): string => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const portal = async (
      step: string,
      path: string,
      form?: Record<string, string>,
    ): Promise<string> => {
      const init: RequestInit = { headers: { cookie: cookieHeader() } };
      if (form !== undefined) {
        init.method = 'POST';
        init.headers = { ...init.headers, 'content-type': 'application/x-www-form-urlencoded' };
        init.body = new URLSearchParams(form).toString();
      }
      const response = await raw(`portal ${step}`, path, init);
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const at = (pair ?? '').indexOf('=');
        if (at > 0) jar.set((pair ?? '').slice(0, at), (pair ?? '').slice(at + 1));
      }
      return response.text();
    };
    const csrfOf = (page: string): string => /name="_csrf" value="([^"]*)"/.exec(page)?.[1] ?? '';
    const valueOf = (page: string, name: string): string =>
      new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1] ?? '';
    await portal('home signed out', '/portal');
    let page = await portal('sign-in page', '/portal/sign-in');
    await portal('sign-in no csrf', '/portal/sign-in', {
      email: 'ada@acme.example',
      password: 'x',
    });
    await portal('sign-in wrong password', '/portal/sign-in', {
      _csrf: csrfOf(page),
      email: 'ada@acme.example',
      password: 'wrong password here',
    });
    page = await portal('sign-in page again', '/portal/sign-in');
    await portal('sign-in', '/portal/sign-in', {
      _csrf: csrfOf(page),
      email: 'ada@acme.example',
      password: 'correct horse battery staple',
      next: '/portal',
    });
    page = await portal('overview', '/portal');
    const csrf = csrfOf(page);
    for (const path of [
      '/portal/account',
      '/portal/activity',
      '/portal/api',
      '/portal/billing/ledger.csv',
      '/portal/catalogue',
      '/portal/catalogue?countries=FR',
      '/portal/esims',
      `/portal/esims/${iccid}`,
      '/portal/esims/8900000000000000000',
      '/portal/esims/123',
      '/portal/inventory',
      '/portal/orders',
      `/portal/orders/${orderReference}`,
      '/portal/orders/00000000-0000-0000-0000-000000000000',
      '/portal/orders/new',
      '/portal/users',
      '/portal/forgot-password',
      '/portal/set-password?token=nope',
      '/portal/nothing',
      `/portal/api/deliveries/${callbackId}`,
    ]) {
      await portal(`page ${path}`, path);
    }
    const billing = await portal('billing', '/portal/billing');
    const topUpKey = valueOf(billing, 'idempotencyKey');
    await portal('top-up bad amount', '/portal/billing/top-up', {
      _csrf: csrf,
      idempotencyKey: topUpKey,
      amount: 'lots',
    });
    await portal('top-up', '/portal/billing/top-up', {
      _csrf: csrf,
      idempotencyKey: topUpKey,
      amount: '25.00',
    });
    await portal('top-up resubmitted', '/portal/billing/top-up', {
      _csrf: csrf,
      idempotencyKey: topUpKey,
      amount: '25.00',
    });
    await portal('billing after', '/portal/billing');
    await portal('top-up no csrf', '/portal/billing/top-up', { idempotencyKey: 'x', amount: '1' });
    await portal('key reveal', '/portal/api/key/reveal', { _csrf: csrf });
    await portal('test event', '/portal/api/test-event', { _csrf: csrf });
    await portal('resend', `/portal/api/deliveries/${callbackId}/resend`, { _csrf: csrf });
    await portal('callback settings bad', '/portal/api/callback', {
      _csrf: csrf,
      callbackUrl: 'ftp://x',
      callbackVersion: 'V3',
    });
    const detail = await portal('esim detail', `/portal/esims/${iccid}`);
    await portal('sms', `/portal/esims/${iccid}/sms`, {
      _csrf: csrf,
      key: valueOf(detail, 'key'),
      message: 'Hello from the portal',
    });
    await portal('sms empty', `/portal/esims/${iccid}/sms`, {
      _csrf: csrf,
      key: valueOf(detail, 'key'),
      message: '',
    });
    const orderForm = await portal('order form', `/portal/orders/new?bundle=${bundle}`);
    await portal('order review', '/portal/orders/review', {
      _csrf: csrf,
      ...formValues(orderForm),
      [`quantity`]: '1',
      bundle,
    });
    await portal('order bad', '/portal/orders', {
      _csrf: csrf,
      bundle: 'esim_none',
      quantity: '1',
    });
    await portal('add user bad', '/portal/users', {
      _csrf: csrf,
      email: 'not-an-email',
      firstName: 'B',
      lastName: 'C',
      role: 'Viewer',
    });
    await portal('add user', '/portal/users', {
      _csrf: csrf,
      email: 'bob@acme.example',
      firstName: 'Bob',
      lastName: 'Builder',
      role: 'Viewer',
    });
    await portal('users after', '/portal/users');
    await portal('password change wrong', '/portal/account/password', {
      _csrf: csrf,
      current: 'nope',
      password: 'another long password',
      confirm: 'another long password',
    });
    await portal('forgot password', '/portal/forgot-password', {
      _csrf: csrf,
      email: 'ada@acme.example',
    });
    await portal('activity after', '/portal/activity');
    await portal('sign out', '/portal/sign-out', { _csrf: csrf });
    await portal('after sign out', '/portal/esims');
    await raw('static css', '/portal/static/portal.css');

    // The CLI on the same database, after the API and the portal.
    await cli('org list', ['org', 'list']);
    await cli('org list json', ['org', 'list', '--json']);
    await cli('org show', ['org', 'show', orgId]);
    await cli('org show unknown', ['org', 'show', '00000000-0000-0000-0000-000000000000']);
    await cli('org groups', ['org', 'groups', orgId, '--json']);
    await cli('org update bad', ['org', 'update', orgId, '--tax-liable', 'Maybe']);
    await cli('org update', ['org', 'update', orgId, '--notes', 'recorded']);
    await cli('user list', ['user', 'list', orgId]);
    await cli('user role', ['user', 'role', orgId, 'bob@acme.example', 'Support']);
    await cli('user role last admin', ['user', 'role', orgId, 'ada@acme.example', 'Viewer']);
    await cli('user remove', ['user', 'remove', orgId, 'bob@acme.example']);
    await cli('user remove unknown', ['user', 'remove', orgId, 'nobody@acme.example']);
    await cli('catalogue list', ['catalogue', 'list', '--countries', 'FR,DE']);
    await cli('catalogue list bad', ['catalogue', 'list', '--countries', 'XX']);
    await cli('networks', ['networks', '--countries', 'France']);
    await cli('networks none', ['networks']);
    await cli('inventory list', ['inventory', 'list', orgId, '--json']);
    await cli('inventory refund bad', [
      'inventory',
      'refund',
      orgId,
      '--usage-id',
      '999999',
      '--quantity',
      '1',
    ]);
    await cli('ledger verify', ['ledger', 'verify', '--json']);
    await cli('ledger show', ['ledger', 'show', orgId, '--limit', '50']);
    await cli('esims set-ref', ['esims', 'set-ref', iccid, '--customer-ref', 'traveller-7']);
    await cli('esims set-ref unknown', [
      'esims',
      'set-ref',
      '8900000000000000000',
      '--customer-ref',
      'x',
    ]);
    await cli('callbacks list', ['callbacks', 'list', orgId, '--json']);
    await cli('callbacks show', ['callbacks', 'show', callbackId]);
    await cli('callbacks show unknown', [
      'callbacks',
      'show',
      '00000000-0000-0000-0000-000000000000',
    ]);
    await cli('mail list', ['mail', 'list', '--json']);
    await cli('audit list', ['audit', 'list', '--org', orgId, '--limit', '100']);
    await cli('card bad', ['org', 'card', orgId, '--number', '1234']);
    await cli('rotate-key bad grace', ['org', 'rotate-key', orgId, '--grace', 'soon']);
    const sim = ['--url', address];
    await cli('sim clock', ['sim', 'clock', ...sim]);
    await cli('sim sms', ['sim', 'sms', '--limit', '5', ...sim]);
    await cli('sim faults', ['sim', 'faults', ...sim]);
    await cli('sim processing', ['sim', 'processing', ...sim]);
    await cli('sim usage', ['sim', 'usage', iccid, '--mb', '1', ...sim]);
    await cli('sim attach bad', ['sim', 'attach', iccid, '--country', 'ZZ', ...sim]);
    await cli('sim msisdn', ['sim', 'msisdn', iccid, ...sim]);
    const reset = CALLS.find(([id]) => id === 'simReset')?.[1];
    if (reset !== undefined) {
      const result = await reset(context);
      answers.push({
        step: 'api simReset',
        status: result.response.status,
        body: shown(result.data),
      });
    }
    await cli('sim advance', ['sim', 'advance', '--days', '31', ...sim]);
    await raw('api esim after a month', `/v2.1/esims/${iccid}/bundles`, { headers: key });
    await cli('ledger verify after', ['ledger', 'verify']);
    // Last, so that every step above is recorded as before: the later versions' shapes.
    await recordLaterVersions({ raw, cli, apiKey: created.apiKey, iccid, bundle });
  } finally {
    await worker.stop();
    await app.close();
    await services.close();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
  writeFileSync(file, JSON.stringify(answers, null, 1));
  console.log(`recorded ${answers.length} answers into ${file}`);
}

/** A parsed answer as text: JSON as the server sent it (key order kept), files by length. */
function shown(data: unknown): string {
  if (data instanceof ArrayBuffer) return `<binary ${data.byteLength} bytes>`;
  if (typeof data === 'string') return data;
  return JSON.stringify(data) ?? '';
}

/** The named inputs of the first form of a page, with their values. */
function formValues(page: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const m of page.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) {
    values[m[1] ?? ''] = m[2] ?? '';
  }
  delete values['_csrf'];
  return values;
}

/** The answers with what varies from run to run replaced by numbered placeholders. */
function normalise(answers: Answer[]): Answer[] {
  const seen = new Map<string, string>();
  const placeholder = (kind: string) => (value: string) => {
    let name = seen.get(value);
    if (name === undefined) {
      name = `<${kind}#${seen.size + 1}>`;
      seen.set(value, name);
    }
    return name;
  };
  const rules: [RegExp, (value: string) => string][] = [
    [/127\.0\.0\.1:\d+/g, () => '127.0.0.1:<port>'],
    [/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?/g, () => '<time>'],
    [/\d{4}-\d{2}-\d{2}/g, () => '<date>'],
    [
      /\b\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{4}(,? \d{2}:\d{2}(:\d{2})?( UTC)?)?/g,
      () => '<date>',
    ],
    [/\b\d{2}:\d{2}(:\d{2})?( UTC)?\b/g, () => '<clock>'],
    [
      /(?:(?<=%24)|(?<![0-9A-Za-z]))[0-9A-Z]{5}(-[0-9A-Z]{5}){3,4}(?![0-9A-Za-z])/g,
      placeholder('matchingId'),
    ],
    [/"(pin|puk)":"\d+"/g, (m) => m.replace(/\d+/, '<digits>')],
    [/\b\d{4} \/ \d{8}\b/g, () => '<pin> / <puk>'],
    [/"latencyMs":\d+/g, () => '"latencyMs":<ms>'],
    // Milliseconds since the epoch (the later versions' firstInstalledDateTime).
    [/"firstInstalledDateTime":\d{12,}/g, () => '"firstInstalledDateTime":<epoch ms>'],
    // Measured durations (the request journal, snapshots), signatures over a time and a random
    // body, and password hashes with their random salt differ between two runs of the same code.
    [/("?(?:durationMs|duration_ms|latency_ms)\\*"?\s*:\s*)\d+/g, (m) => m.replace(/\d+$/, '<ms>')],
    [
      /((?:X-Signature-SHA256|signature)[\\"]*:[\\"]*)[A-Za-z0-9+/=]+/gi,
      (m) => m.replace(/[A-Za-z0-9+/=]+$/, '<signature>'),
    ],
    [/scrypt\$[^\\"\s<]*/g, () => '<password hash>'],
    [/\b\d+ ms\b/g, () => '<ms> ms'],
    [/••••[A-Za-z0-9_-]{4}/g, () => '••••<last4>'],
    [/>[0-9a-f]{8}</g, () => '><short id><'],
    [/<path stroke="#000000" d="[^"]*"/g, () => '<path stroke="#000000" d="<qr code>"'],
    [/<binary \d+ bytes>/g, () => '<binary>'],
    [/esim_(?!\d+GB|UL|none|wrong)[A-Za-z0-9_-]{20,}/g, placeholder('key')],
    [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, placeholder('uuid')],
    [/\b[0-9A-HJKMNP-TV-Z]{26}\b/g, placeholder('ulid')],
    [/\b89\d{17,18}\b/g, placeholder('iccid')],
    [/\b[A-Za-z0-9_-]{40,}\b/g, placeholder('token')],
    [/\b[0-9A-F]{4,}(-[0-9A-F]{4,}){2,}\b/g, placeholder('code')],
  ];
  return answers.map((a) => {
    let step = a.step;
    for (const [re, replace] of rules) step = step.replace(re, (m) => replace(m));
    let body = a.body;
    for (const [re, replace] of rules) body = body.replace(re, (m) => replace(m));
    let location = a.location;
    if (location !== undefined)
      for (const [re, replace] of rules) location = location.replace(re, (m) => replace(m));
    return { ...a, step, body, ...(location === undefined ? {} : { location }) };
  });
}

function compare(beforeFile: string, afterFile: string): number {
  const before = normalise(JSON.parse(readFileSync(beforeFile, 'utf8')) as Answer[]);
  const after = normalise(JSON.parse(readFileSync(afterFile, 'utf8')) as Answer[]);
  let differences = 0;
  const count = Math.max(before.length, after.length);
  for (let i = 0; i < count; i += 1) {
    const a = JSON.stringify(before[i]);
    const b = JSON.stringify(after[i]);
    if (a === b) continue;
    differences += 1;
    console.log(`differs: ${before[i]?.step ?? after[i]?.step}`);
    let at = 0;
    while (at < (a?.length ?? 0) && a?.[at] === b?.[at]) at += 1;
    console.log(`  before: …${a?.slice(Math.max(0, at - 150), at + 150)}`);
    console.log(`  after:  …${b?.slice(Math.max(0, at - 150), at + 150)}`);
  }
  const digest = createHash('sha256').update(JSON.stringify(after)).digest('hex').slice(0, 12);
  console.log(`${count} answers, ${differences} different (normalised digest ${digest})`);
  return differences === 0 ? 0 : 1;
}

const [command, first, second] = process.argv.slice(2);
if (command === 'record' && first !== undefined) await record(first);
else if (command === 'compare' && first !== undefined && second !== undefined) {
  process.exitCode = compare(first, second);
} else {
  console.error('usage: record-answers.ts record <file> | compare <before> <after>');
  process.exitCode = 2;
}
