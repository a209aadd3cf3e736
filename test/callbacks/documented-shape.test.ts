import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NetworkEvent } from '../../src/domain/esims/lifecycle/network-events.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import { startReceiver } from '../receiver.js';
import type { Received, Receiver } from '../receiver.js';
import { ICCID, recordUsage, snapshot, workerFor } from './fixtures.js';

// What the service sends is exactly what its OpenAPI document says: every callback body of every
// alert type, in both versions, against the published component schema (no field more, none
// missing, every value of the documented type), and the request headers against the documented
// header parameters.

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  enum?: unknown[];
  anyOf?: Schema[];
  $ref?: string;
}

interface CallbackOperation {
  parameters: { name: string; in: string; required: boolean }[];
}

const UNLIMITED_ICCID = '8944000000000000022';

const TRANSPORT_HEADERS = ['host', 'connection', 'content-length', 'content-type'];

function typeMatches(type: string | undefined, value: unknown): boolean {
  switch (type) {
    case undefined:
      return true;
    case 'integer':
      return Number.isInteger(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default:
      return typeof value === type;
  }
}

/** Every way `value` departs from `schema`, as readable lines. */
function departures(
  schemas: Record<string, Schema>,
  raw: Schema,
  value: unknown,
  path: string,
): string[] {
  const schema = raw.$ref === undefined ? raw : (schemas[raw.$ref.split('/').at(-1) ?? ''] ?? {});
  if (schema.anyOf !== undefined) {
    const fits = schema.anyOf.some((s) => departures(schemas, s, value, path).length === 0);
    return fits ? [] : [`${path}: ${JSON.stringify(value)} matches no documented alternative`];
  }
  if (!typeMatches(schema.type, value))
    return [`${path}: ${JSON.stringify(value)} is not ${schema.type}`];
  if (schema.enum !== undefined && !schema.enum.includes(value)) {
    return [`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`];
  }
  if (schema.type !== 'object' || typeof value !== 'object' || value === null) return [];
  const object = value as Record<string, unknown>;
  const found: string[] = [];
  for (const field of schema.required ?? []) {
    if (!(field in object)) found.push(`${path}.${field}: documented as required, not sent`);
  }
  for (const [field, item] of Object.entries(object)) {
    const property = schema.properties?.[field];
    if (property === undefined) {
      if (schema.additionalProperties !== false) continue;
      found.push(`${path}.${field}: sent but not documented`);
    } else found.push(...departures(schemas, property, item, `${path}.${field}`));
  }
  return found;
}

for (const kind of DATABASES) {
  describe(`usage callbacks as documented [${kind}]`, () => {
    let t: TestApp;
    let receiver: Receiver;
    let v2: TestOrg;
    let v3: TestOrg;
    let schemas: Record<string, Schema>;
    let operation: CallbackOperation;

    const attach = async (
      organisationId: string,
      event: Omit<Extract<NetworkEvent, { type: 'attach' }>, 'type' | 'organisationId' | 'iccid'>,
    ): Promise<void> => {
      await t.deps.store.db
        .transaction()
        .execute((trx) =>
          t.deps.networkEvents.record(
            trx,
            { type: 'attach', organisationId, iccid: ICCID, ...event },
            t.deps.clock.now(),
          ),
        );
    };

    before(async () => {
      receiver = await startReceiver();
      t = await startTestApp(kind);
      v2 = await t.createOrg({ callbackUrl: `${receiver.url}/v2`, callbackVersion: 'V2' });
      v3 = await t.createOrg({ callbackUrl: `${receiver.url}/v3`, callbackVersion: 'V3' });
      const res = await t.request(v2.apiKey, { method: 'GET', url: '/v2.1/openapi.json' });
      const doc = res.json() as {
        paths: Record<
          string,
          Record<
            string,
            { callbacks: Record<string, Record<string, Record<string, CallbackOperation>>> }
          >
        >;
        components: { schemas: Record<string, Schema> };
      };
      schemas = doc.components.schemas;
      const usage = doc.paths['/v2.1/organisation']?.['get']?.callbacks['usage'];
      const post = usage?.['{$response.body#/organisations/0/callbackUrl}']?.['post'];
      assert.ok(post, 'the usage callback is documented');
      operation = post;

      // Every alert type, with and without a bundle, for both organisations.
      for (const org of [v2, v3]) {
        await recordUsage(t, org.id, snapshot({ usedBytes: 600_000_000 }), 0, { firstUse: true });
        await recordUsage(
          t,
          org.id,
          snapshot({ unlimited: true, initialBytes: -1, usedBytes: 5 }),
          0,
          { firstUse: true, iccid: UNLIMITED_ICCID },
        );
        await attach(org.id, {
          country: 'FR',
          previousCountry: null,
          firstAttachment: true,
          assignment: snapshot({ state: 'Queued', startTime: null, endTime: null }),
        });
        await attach(org.id, {
          country: 'DE',
          previousCountry: 'FR',
          firstAttachment: false,
          assignment: undefined,
        });
      }
      await workerFor(t).drain();
    });
    after(async () => {
      await t.close();
      await receiver.close();
    });

    const check = (
      version: 'V2' | 'V3',
      requests: readonly Received[],
    ): Record<string, unknown>[] => {
      assert.ok(requests.length > 0, `${version} callbacks were sent`);
      const bodies = requests.map((r) => JSON.parse(r.rawBody) as Record<string, unknown>);
      const schema = schemas[`UsageCallback${version}`];
      assert.ok(schema, `UsageCallback${version} is documented`);
      const problems = bodies.flatMap((body) => departures(schemas, schema, body, 'body'));
      assert.deepEqual(problems, []);
      return bodies;
    };

    it('sends V3 bodies exactly as UsageCallbackV3 documents them', () => {
      const bodies = check('V3', receiver.at('/v3'));
      assert.deepEqual([...new Set(bodies.map((b) => b['alertType']))].sort(), [
        'CountryChange',
        'FirstAttachment',
        'FirstUse',
        'Utilisation',
      ]);
      // The optional fields are sent, each where it belongs.
      const thresholds = bodies
        .filter((b) => b['alertType'] === 'Utilisation')
        .map((b) => b['threshold']);
      assert.deepEqual(
        [...thresholds].sort((x, y) => Number(x) - Number(y)),
        [1, 50],
      );
      const change = bodies.find((b) => b['alertType'] === 'CountryChange');
      assert.equal(change?.['country'], 'DE');
      assert.equal(change?.['previousCountry'], 'FR');
      assert.equal(change?.['bundle'], undefined);
      assert.equal(bodies.find((b) => b['alertType'] === 'FirstAttachment')?.['country'], 'FR');
      assert.ok(
        bodies.some(
          (b) => (b['bundle'] as { unlimited?: boolean } | undefined)?.unlimited === true,
        ),
      );
    });

    it('sends V2 bodies exactly as UsageCallbackV2 documents them', () => {
      const bodies = check('V2', receiver.at('/v2'));
      assert.equal(bodies.length, receiver.at('/v3').length);
      assert.ok(bodies.some((b) => b['bundle'] === undefined));
    });

    it('sends exactly the documented headers, the signature on V3 only', () => {
      const documented = operation.parameters.filter((p) => p.in === 'header');
      for (const [path, version] of [
        ['/v2', 'V2'],
        ['/v3', 'V3'],
      ] as const) {
        for (const r of receiver.at(path)) {
          const sent = Object.keys(r.headers)
            .filter((h) => !TRANSPORT_HEADERS.includes(h))
            .sort();
          const expected = documented
            .filter((p) => p.required || (version === 'V3' && p.name === 'X-Signature-SHA256'))
            .map((p) => p.name.toLowerCase())
            .sort();
          assert.deepEqual(sent, expected, `${version} headers`);
          assert.equal(r.headers['x-delivery-attempt'], '1');
          assert.match(String(r.headers['content-type']), /^application\/json/);
        }
      }
    });
  });
}
