import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { saveCard } from '../../src/domain/money/save-card.js';
import { FR_1MB, buy, installAndAttach, seedTestBundles } from '../esim-fixtures.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// "Never a 500": every operation of the generated OpenAPI document (the simulator control plane
// included) gets hostile input with a valid key — wrong types and out-of-range values in each
// path and query parameter, malformed identifiers, missing, extra and wrong-typed body fields,
// huge and negative numbers, empty strings, unicode, arrays for objects, a null body. Every
// answer must be below 500, and every error a JSON body with a string `message`.

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  example?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean | number;
  minLength?: number;
  minItems?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  nullable?: boolean;
  $ref?: string;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: JsonSchema;
}

interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body: JsonSchema | undefined;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: unknown }>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** Strings for path and query parameters (URL-encoded when sent). */
const HOSTILE_STRINGS = [
  '',
  ' ',
  '0',
  '-1',
  '1.5',
  '1e309',
  '-1e309',
  '9223372036854775808',
  '-9223372036854775809',
  '18446744073709551616',
  'NaN',
  'Infinity',
  'null',
  'true',
  '[]',
  '{}',
  '💥',
  'ü'.repeat(200),
  'x'.repeat(5000),
  '%',
  '../../etc/passwd',
  "' or 1=1 --",
  '\u0000',
  '8944000000000000014', // a well-formed ICCID nobody owns
  '8944000000000000015', // wrong Luhn check digit
  '89440000000000000000000',
  '00000000-0000-0000-0000-000000000000',
  'ABCDE-FGHIJ-KLMNO-PQRST',
];

/** Raw JSON literals for body fields (1e309 and 2^63 cannot be written by JSON.stringify). */
const HOSTILE_LITERALS = [
  'null',
  '""',
  '" "',
  '"💥"',
  JSON.stringify('ü'.repeat(2000)),
  '"\\u0000"',
  '"\\ud800"',
  '-1',
  '0',
  '-0',
  '1.5',
  '1e-300',
  '1e309',
  '-1e309',
  '9223372036854775808',
  '-9223372036854775809',
  '18446744073709551616',
  'true',
  '[]',
  '{}',
  '[null]',
  '"1"',
  '"8944000000000000014"',
];

/** Whole bodies: wrong types, a null body, prototype pollution attempts. */
const HOSTILE_BODIES = [
  'null',
  '[]',
  '[{}]',
  '"x"',
  '0',
  '1e309',
  'true',
  '{}',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000),
  '['.repeat(50_000) + ']'.repeat(50_000),
];

/** Request headers a client may get wrong (sent with a JSON body on POST and DELETE). */
const HOSTILE_HEADERS: readonly Record<string, string>[] = [
  { 'content-type': 'application/json; charset=utf-16' },
  { 'content-type': 'application/x-www-form-urlencoded' },
  { 'content-type': 'multipart/form-data; boundary=x' },
  { 'content-type': '' },
  { 'content-encoding': 'gzip' },
  { accept: 'application/zip' },
  { accept: 'text/csv' },
];

const MARKER = '__hostile_value__';

function resolve(doc: OpenApiDocument, schema: JsonSchema | undefined): JsonSchema | undefined {
  if (schema?.$ref === undefined) return schema;
  const name = schema.$ref.split('/').at(-1) ?? '';
  return resolve(doc, doc.components?.schemas?.[name]);
}

function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const content = (
        op.requestBody as { content?: Record<string, { schema?: JsonSchema }> } | undefined
      )?.content;
      operations.push({
        method: method.toUpperCase(),
        path,
        parameters: op.parameters ?? [],
        body: resolve(doc, content?.['application/json']?.schema),
      });
    }
  }
  return operations;
}

/** Sensible values by field name, so that the one hostile field is what a request gets wrong. */
interface Known {
  readonly iccid: string;
  readonly bundle: string;
  readonly assignmentId: string;
  readonly orderReference: string;
  readonly callbackId: string;
}

function knownValue(name: string, known: Known): unknown {
  switch (name) {
    case 'iccid':
      return known.iccid;
    case 'name':
    case 'item':
      return known.bundle;
    case 'assignmentId':
      return known.assignmentId;
    case 'orderReference':
    case 'reference':
      return known.orderReference;
    case 'id':
      return known.callbackId;
    case 'amount':
      return '1000';
    case 'country':
      return 'FR';
    case 'message':
      return 'hello';
    case 'route':
      return '/v2.1/never-matched';
    default:
      return undefined;
  }
}

function typeOf(schema: JsonSchema): string | undefined {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type !== undefined) return type;
  if (schema.properties !== undefined) return 'object';
  return undefined;
}

/** A plausible value for a schema: required properties only, enums' first value, minimums. */
function sample(doc: OpenApiDocument, raw: JsonSchema, name: string, known: Known): unknown {
  const schema = resolve(doc, raw) ?? {};
  const byName = knownValue(name, known);
  if (byName !== undefined && typeOf(schema) === 'string') return byName;
  if (schema.enum !== undefined) return schema.enum[0];
  const variant = schema.anyOf?.[0] ?? schema.oneOf?.[0] ?? schema.allOf?.[0];
  if (variant !== undefined && typeOf(schema) === undefined)
    return sample(doc, variant, name, known);
  switch (typeOf(schema)) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const field of schema.required ?? []) {
        const property = schema.properties?.[field];
        if (property !== undefined) out[field] = sample(doc, property, field, known);
      }
      return out;
    }
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () =>
        sample(doc, schema.items ?? {}, name, known),
      );
    case 'integer':
    case 'number':
      return schema.example ?? schema.default ?? Math.max(1, schema.minimum ?? 1);
    case 'boolean':
      return false;
    default:
      return schema.example ?? schema.default ?? 'x'.repeat(Math.max(1, schema.minLength ?? 1));
  }
}

type JsonPath = readonly (string | number)[];

/** Every property path of a body schema, nested objects and first array items included. */
function fieldPaths(doc: OpenApiDocument, raw: JsonSchema, prefix: JsonPath = []): JsonPath[] {
  const schema = resolve(doc, raw) ?? {};
  const paths: JsonPath[] = [];
  if (typeOf(schema) === 'object') {
    for (const [field, property] of Object.entries(schema.properties ?? {})) {
      paths.push([...prefix, field], ...fieldPaths(doc, property, [...prefix, field]));
    }
  } else if (typeOf(schema) === 'array' && schema.items !== undefined) {
    paths.push(...fieldPaths(doc, schema.items, [...prefix, 0]));
  }
  return paths;
}

/** A deep copy of `base` with `value` at `path`, creating the parents it needs. */
function withValue(base: unknown, path: JsonPath, value: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (typeof head === 'number') {
    const list = Array.isArray(base) ? [...(base as unknown[])] : [];
    list[head] = withValue(list[head] ?? {}, rest, value);
    return list;
  }
  const object =
    typeof base === 'object' && base !== null && !Array.isArray(base)
      ? { ...(base as Record<string, unknown>) }
      : {};
  object[head] = withValue(object[head] ?? (typeof rest[0] === 'number' ? [] : {}), rest, value);
  return object;
}

/** A deep copy of `base` without the field at `path`. */
function without(base: unknown, path: JsonPath): unknown {
  const [head, ...rest] = path;
  if (head === undefined || typeof base !== 'object' || base === null) return base;
  if (Array.isArray(base)) {
    return base.map((item: unknown, i) =>
      i === head ? (rest.length === 0 ? item : without(item, rest)) : item,
    );
  }
  const object = { ...(base as Record<string, unknown>) };
  if (typeof head === 'string') {
    if (rest.length === 0) delete object[head];
    else object[head] = without(object[head], rest);
  }
  return object;
}

/** The body with a raw JSON literal at `path`. */
function bodyWith(base: unknown, path: JsonPath, literal: string): string {
  return JSON.stringify(withValue(base, path, MARKER)).replace(JSON.stringify(MARKER), literal);
}

interface Probe {
  readonly method: string;
  readonly url: string;
  readonly payload?: string;
  readonly headers?: Record<string, string>;
}

function probesFor(doc: OpenApiDocument, op: Operation, known: Known): Probe[] {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const query = op.parameters.filter((p) => p.in === 'query');
  const baseParams: Record<string, string> = {};
  for (const p of pathParams) {
    baseParams[p.name] = String(sample(doc, p.schema ?? {}, p.name, known));
  }
  const baseQuery: Record<string, string> = {};
  for (const p of query.filter((q) => q.required === true)) {
    baseQuery[p.name] = String(sample(doc, p.schema ?? {}, p.name, known));
  }
  const url = (params: Record<string, string>, search: string): string => {
    let path = op.path;
    for (const [name, value] of Object.entries(params)) path = path.replace(`{${name}}`, value);
    return search === '' ? path : `${path}?${search}`;
  };
  const encoded = (params: Record<string, string>) =>
    Object.fromEntries(Object.entries(params).map(([k, v]) => [k, encodeURIComponent(v)]));
  const searchOf = (q: Record<string, string>) => new URLSearchParams(q).toString();
  const baseUrl = url(encoded(baseParams), searchOf(baseQuery));
  const baseBody = op.body === undefined ? undefined : sample(doc, op.body, '', known);
  const basePayload = baseBody === undefined ? undefined : JSON.stringify(baseBody);
  const jsonHeaders = { 'content-type': 'application/json' };
  const probe = (u: string, payload = basePayload, headers: Record<string, string> = {}): Probe =>
    payload === undefined
      ? { method: op.method, url: u, headers }
      : { method: op.method, url: u, payload, headers: { ...jsonHeaders, ...headers } };

  const probes: Probe[] = [probe(baseUrl)];
  for (const p of pathParams) {
    for (const value of HOSTILE_STRINGS) {
      probes.push(probe(url(encoded({ ...baseParams, [p.name]: value }), searchOf(baseQuery))));
    }
    // Raw, malformed percent-encoding.
    for (const raw of ['%', '%E0%A4%A', '%00']) {
      probes.push(probe(url({ ...encoded(baseParams), [p.name]: raw }, searchOf(baseQuery))));
    }
  }
  for (const p of query) {
    for (const value of HOSTILE_STRINGS) {
      probes.push(probe(url(encoded(baseParams), searchOf({ ...baseQuery, [p.name]: value }))));
    }
    const rest = searchOf(
      Object.fromEntries(Object.entries(baseQuery).filter(([k]) => k !== p.name)),
    );
    const joined = (extra: string) => (rest === '' ? extra : `${rest}&${extra}`);
    const name = encodeURIComponent(p.name);
    for (const extra of [`${name}=1&${name}=2`, `${name}[]=1`, name, `${name}=%`, `${name}[a]=1`]) {
      probes.push(probe(url(encoded(baseParams), joined(extra))));
    }
  }
  probes.push(probe(url(encoded(baseParams), searchOf({ ...baseQuery, unexpected: 'x' }))));
  for (const key of ['', ' ', 'x'.repeat(300), 'a b', '\t']) {
    if (op.method === 'POST') probes.push(probe(baseUrl, basePayload, { 'idempotency-key': key }));
  }
  for (const headers of HOSTILE_HEADERS) {
    probes.push(
      op.method === 'GET'
        ? probe(baseUrl, undefined, headers)
        : probe(baseUrl, basePayload ?? '{}', headers),
    );
  }
  if (op.method === 'POST' || op.method === 'DELETE') {
    for (const body of HOSTILE_BODIES) probes.push(probe(baseUrl, body));
  }
  if (op.body !== undefined && baseBody !== undefined) {
    for (const path of fieldPaths(doc, op.body)) {
      probes.push(probe(baseUrl, JSON.stringify(without(baseBody, path))));
      probes.push(probe(baseUrl, JSON.stringify(withValue(baseBody, [...path, 'unexpected'], 1))));
      for (const literal of HOSTILE_LITERALS)
        probes.push(probe(baseUrl, bodyWith(baseBody, path, literal)));
    }
    probes.push(probe(baseUrl, JSON.stringify({ ...(baseBody as object), unexpected: 1 })));
  }
  return probes;
}

interface Finding {
  readonly probe: Probe;
  readonly status: number | string;
  readonly body: string;
}

for (const kind of DATABASES) {
  describe(`never a 500 [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let doc: OpenApiDocument;
    let known: Known;

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000 });
      // A saved card, so that top-up amounts reach the payment path.
      await saveCard(t.deps, org.id, { number: '4242424242424242', expMonth: 12, expYear: 2099 });
      const bought = await buy(t, org, FR_1MB.name);
      const iccid = bought.iccids[0] ?? '';
      await installAndAttach(t, iccid);
      const bundles = await t.request(org.apiKey, {
        method: 'GET',
        url: `/v2.1/esims/${iccid}/bundles`,
      });
      const callbacks = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/callbacks' });
      known = {
        iccid,
        bundle: FR_1MB.name,
        assignmentId: bundles.json().bundles[0].assignments[0].id,
        orderReference: bought.orderReference,
        callbackId: callbacks.json().callbacks[0].id,
      };
      const res = await t.request(org.apiKey, { method: 'GET', url: '/v2.1/openapi.json' });
      assert.equal(res.statusCode, 200);
      doc = res.json() as OpenApiDocument;
    });
    after(() => t.close());

    it('names the field for a number that is not finite and for a NUL character', async () => {
      for (const [url, payload, message] of [
        [
          '/v2.1/orders?perPage=Infinity',
          undefined,
          'query parameter perPage must be a finite number',
        ],
        [
          '/v2.1/catalogue?perPage=1e309',
          undefined,
          'query parameter perPage must be a finite number',
        ],
        [
          '/v2.1/orders/%00',
          undefined,
          'path parameter orderReference must not contain a NUL character',
        ],
        [
          '/v2.1/orders',
          '{"type":"validate","order":[{"type":"bundle","item":"a\\u0000b","quantity":1}]}',
          'body field order[0].item must not contain a NUL character',
        ],
        [
          '/v2.1/orders',
          '{"type":"validate","order":[{"type":"bundle","item":"ok","quantity":1},{"type":"bundle","item":"\\u0000","quantity":1}]}',
          'body field order[1].item must not contain a NUL character',
        ],
      ] as const) {
        const res = await t.request(org.apiKey, {
          method: payload === undefined ? 'GET' : 'POST',
          url,
          ...(payload === undefined
            ? {}
            : { payload, headers: { 'content-type': 'application/json' } }),
        });
        assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
        assert.deepEqual(res.json(), { message, code: 'validation_failed' });
      }
    });

    it('answers hostile input on every operation below 500, with a {message} for every error', async () => {
      // The snapshot export writes out every row, the request journal's included, which each
      // probe lengthens: it is probed first, while the journal is short.
      const exportsAll = (op: Operation) => op.method === 'GET' && op.path === '/_sim/snapshot';
      const operations = operationsOf(doc).sort(
        (a, b) => Number(exportsAll(b)) - Number(exportsAll(a)),
      );
      assert.ok(operations.some(exportsAll), 'the snapshot export is in the document');
      assert.ok(
        operations.some((op) => op.path.startsWith('/_sim/')),
        'the simulator control plane is in the document',
      );
      const findings: Finding[] = [];
      let sent = 0;
      for (const op of operations) {
        for (const probe of probesFor(doc, op, known)) {
          sent += 1;
          const options: InjectOptions = {
            method: probe.method as InjectOptions['method'],
            url: probe.url,
            headers: { ...probe.headers },
            ...(probe.payload === undefined ? {} : { payload: probe.payload }),
          };
          let res;
          try {
            res = await t.request(org.apiKey, options);
          } catch (error) {
            findings.push({ probe, status: 'threw', body: String(error) });
            continue;
          }
          let message: unknown;
          if (res.statusCode >= 400) {
            try {
              message = (res.json() as { message?: unknown }).message;
            } catch {
              message = undefined;
            }
          }
          if (res.statusCode >= 500 || (res.statusCode >= 400 && typeof message !== 'string')) {
            findings.push({ probe, status: res.statusCode, body: res.body.slice(0, 300) });
          }
        }
        // Whatever a probe of the control plane changed is undone before the next operation.
        await t.app.inject({ method: 'POST', url: '/_sim/reset' });
      }
      assert.ok(sent > 1000, `${sent} probes sent`);
      const report = findings
        .slice(0, 40)
        .map(
          (f) =>
            `${f.status} ${f.probe.method} ${f.probe.url.slice(0, 160)} ${f.probe.payload?.slice(0, 160) ?? ''} -> ${f.body}`,
        )
        .join('\n');
      assert.equal(findings.length, 0, `${findings.length} of ${sent} probes failed:\n${report}`);
    });
  });
}
