import swagger from '@fastify/swagger';
import type { SwaggerOptions } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import {
  EXAMPLE_BUNDLE,
  EXAMPLE_ICCID,
  EXAMPLE_ORDER_REFERENCE,
  parameterExample,
  requestExample,
} from './openapi-request-examples.js';
import { EXAMPLES, SUCCESS_DESCRIPTIONS } from './openapi-responses.js';
import {
  addVersionExamples,
  exampleIn,
  laterVersionOf,
  liveOperations,
  organisationWrapped,
  versionDescription,
} from './versions/document.js';
import type { ApiVersion } from './versions/version.js';
import { ErrorRef, standardErrors } from './schemas/common.js';
import { CALLBACK_HEADERS, CALLBACK_USER_AGENT } from '../callbacks/headers.js';
import { UsageCallbackV2, UsageCallbackV3 } from './schemas/usage-callback.js';

// The OpenAPI 3.0.1 document is generated from the route schemas. What this module adds is what
// no single route owns: the document header, the tag list, the usage callback, and the error
// responses that come from the platform (authentication, validation, the error handler) rather
// than from the route itself.

export const API_VERSION = '2.1.0';
export const API_PREFIX = '/v2.1';
export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;
const V2_1 = '2.1';

const DESCRIPTION = `Prepaid eSIM data bundles: organisation and users, balance top-up, the bundle catalogue, orders and inventory, eSIMs and their bundle lifecycle, and usage callbacks.

**Authentication.** Send the organisation API key in the \`X-API-Key\` header on every request. On GET and HEAD only, the \`api_key\` query parameter is accepted instead (e.g. in a browser); anywhere else it is refused with 403.

**Units.** Money is an integer in the minor unit of the organisation currency (cents for USD). Catalogue \`dataAmount\` and inventory \`data\` are decimal megabytes (1 GB = 1000 MB; -1 when unlimited); callback quantities are bytes. Durations are days. Every timestamp is RFC 3339 UTC ending in Z, or an empty string where there is none.

**Errors.** Every error body is \`{"message": "...", "code": "..."}\`: \`code\` is a stable machine-readable reason from the error catalogue (docs/errors.md). 400 bad input (the message names the field), 403 missing or invalid key, 404 unknown route or a resource that does not exist or belongs to another organisation, 409 Idempotency-Key conflict, 413 body too large, 415 body not JSON, 429 rate limited (with Retry-After), 500 unexpected (no internals), 503 payment processor unavailable (top-up) or instance shutting down (with Retry-After).

**Rate limits.** When the service limits requests (on by default in production), every authenticated response carries \`X-RateLimit-Limit\` (points per window), \`X-RateLimit-Remaining\`, \`X-RateLimit-Reset\` (when the window ends, RFC 3339) and \`X-RateLimit-Cost\` (what the request cost); over the budget the answer is 429 with \`Retry-After\` in seconds. Too many requests with a missing or invalid key from one address also get 429 for a while.

**Live routes.** Besides the operations of the v2.1 interface description this service implements, it answers the live v2.1 routes that description leaves out (organisation groups, networks, inventory refund, eSIM refresh and customer reference, revoke by bundle name, the QR and CSV install files), in the live service's shape; they are part of the interface and carry no mark.

**Extensions.** Operations marked \`x-extension: true\` are additions of this service, in neither the v2.1 interface description nor the live service; they are documented here and stable. Operations marked \`x-simulator: true\` exist in simulator mode only.`;

const TAGS = [
  {
    name: 'Organisation',
    description: 'The caller organisation, its users, its balance and its bundle groups.',
  },
  {
    name: 'Catalogue',
    description: 'Bundles the organisation may order, and the mobile networks of each country.',
  },
  { name: 'Orders', description: 'Placing and reading orders.' },
  {
    name: 'Inventory',
    description: 'Bundles bought and not yet applied to an eSIM; refunds of them to the balance.',
  },
  {
    name: 'eSIMs',
    description:
      'eSIM profiles and their customer reference, their bundles, history, location, network refresh and SMS; install data as JSON, CSV or QR codes.',
  },
  {
    name: 'Callbacks (extension)',
    description: 'Usage callback deliveries and their attempts; resending a failed delivery.',
  },
  { name: 'Operations', description: 'Health and readiness probes, outside the base path.' },
  {
    name: 'Simulator',
    description:
      'Control plane of the simulated network and clock (x-simulator). Simulator mode only; absent (404) in production mode.',
  },
];

// The operations the v2.1 description defines, those it only refers to, and the live routes it
// leaves out. Anything else under the base path is an extension of this service and is marked
// so when its route does not say.
const SPEC_OPERATIONS = new Set([
  'GET /organisation',
  'POST /organisation/balance',
  'GET /catalogue',
  'GET /inventory',
  'GET /orders/{orderReference}',
  'GET /esims/{iccid}',
  'GET /esims/{iccid}/history',
  'GET /esims/{iccid}/location',
  'POST /esims/{iccid}/sms',
  'DELETE /esims/{iccid}/bundles/{name}/applications/{assignmentId}',
]);
const REFERENCED_OPERATIONS = [/^POST \/orders$/, /^GET \/esims\/\{iccid\}\/bundles(\/|$)/];
// The live v2.1 routes the description leaves out (docs/compatibility.md): the live service
// answers them, so they are part of the interface, not extensions.
export const LIVE_OPERATIONS: ReadonlySet<string> = new Set([
  'GET /organisation/groups',
  'GET /networks',
  'POST /inventory/refund',
  'GET /esims/{iccid}/refresh',
  'PUT /esims',
  'DELETE /esims/{iccid}/bundles/{name}',
  'GET /esims/qr/{reference}',
  'GET /esims/csv/{reference}',
]);

/** Fastify's `/a/:id` as OpenAPI's `/a/{id}`. */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

export interface RegisteredRoute {
  readonly method: string;
  readonly url: string;
  readonly hidden: boolean;
}

const registries = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/**
 * Every route the app registered (one entry per method), to check a document covers them: those
 * of the v2.1 document (everything but the later versions' scopes), or of one later version.
 */
export function registeredRoutes(
  app: FastifyInstance,
  version?: ApiVersion,
): readonly RegisteredRoute[] {
  const all = registries.get(app) ?? [];
  if (version !== undefined) {
    // The version's GET / is registered at the bare prefix too.
    const { prefix } = version;
    return all.filter((r) => r.url === prefix || r.url.startsWith(`${prefix}/`));
  }
  return all.filter((r) => laterVersionOf(r.url) === undefined);
}

/**
 * The paths of every OpenAPI document the app serves (one per API version), found among its
 * routes, so what is generated from them (examples checks, client collections) covers each.
 */
export function servedDocumentPaths(app: FastifyInstance): string[] {
  const paths = (registries.get(app) ?? [])
    .filter((r) => r.method === 'GET' && r.url.endsWith('/openapi.json'))
    .map((r) => r.url);
  return [...new Set(paths)].sort();
}

type Schema = FastifySchema & Record<string, unknown>;

function methodsOf(route: RouteOptions): string[] {
  return (Array.isArray(route.method) ? route.method : [route.method]).map((m) => String(m));
}

// Fills the responses every authenticated operation can give because of the platform: the key
// check (403), request validation (400), the error handler (500), resource lookup on path
// parameters (404), the Idempotency-Key replay guard on POST (409), the rate limits (429), and
// the body parser on operations that take a body (413, 415). A route's own entries win.
function withPlatformResponses(
  schema: Schema,
  method: string,
  url: string,
  version: ApiVersion | undefined,
): Schema {
  const response = { ...((schema.response as Record<string, unknown> | undefined) ?? {}) };
  const add = (status: number, value: unknown): void => {
    if (!(String(status) in response)) response[String(status)] = value;
  };
  add(400, standardErrors[400]);
  add(403, standardErrors[403]);
  if (url.includes('{')) add(404, standardErrors[404]);
  if (method === 'POST') {
    add(409, {
      ...standardErrors[400],
      description:
        'Idempotency-Key conflict: the key was used with a different request, or the first request with it is still running.',
    });
  }
  if (schema.body !== undefined) {
    add(413, { ...ErrorRef, description: 'The request body is larger than BODY_LIMIT_BYTES.' });
    add(415, { ...ErrorRef, description: 'The request body is not application/json.' });
  }
  add(429, {
    ...ErrorRef,
    description:
      'Rate limited: the key spent its budget for the current window, or this address sent too many requests with a missing or invalid key. Retry-After says how many seconds to wait.',
  });
  add(500, standardErrors[500]);
  const prefix = version?.prefix ?? API_PREFIX;
  const operation = `${method} ${url.slice(prefix.length)}`;
  const extension =
    version === undefined
      ? !SPEC_OPERATIONS.has(operation) &&
        !LIVE_OPERATIONS.has(operation) &&
        !REFERENCED_OPERATIONS.some((r) => r.test(operation))
      : !liveOperations(version).has(operation);
  const marks: Record<string, unknown> = {};
  if (extension && !('x-extension' in schema)) marks['x-extension'] = true;
  return { ...schema, ...marks, response };
}

type Transform = (input: { schema: FastifySchema; url: string; route: RouteOptions }) => {
  schema: FastifySchema;
  url: string;
};

const HIDDEN = { hide: true } as FastifySchema;

/** A later version's document: its own routes only, with the platform's responses. */
function versionTransform(version: ApiVersion): Transform {
  return ({ schema, url, route }) => {
    if (!url.startsWith(`${version.prefix}/`) || schema === undefined)
      return { schema: HIDDEN, url };
    if ((schema as Schema)['hide'] === true) return { schema, url };
    const method = methodsOf(route)[0] ?? 'GET';
    return {
      schema: withPlatformResponses(schema as Schema, method, openApiPath(url), version),
      url,
    };
  };
}

/** The v2.1 document: everything but the later versions' routes. */
function transform(input: { schema: FastifySchema; url: string; route: RouteOptions }): {
  schema: FastifySchema;
  url: string;
} {
  const { url, route } = input;
  const schema = input.schema as Schema | undefined;
  if (laterVersionOf(url) !== undefined) return { schema: HIDDEN, url };
  if (schema === undefined || schema['hide'] === true) return { schema: input.schema, url };
  if (url.startsWith('/_sim')) {
    const tags = (schema['tags'] as string[] | undefined) ?? ['Simulator'];
    return { schema: { ...schema, tags, 'x-simulator': true } as Schema, url };
  }
  if (url.startsWith(`${API_PREFIX}/`)) {
    const method = methodsOf(route)[0] ?? 'GET';
    return { schema: withPlatformResponses(schema, method, openApiPath(url), undefined), url };
  }
  return { schema, url };
}

type OpenApiObject = {
  info?: { description?: string };
  tags?: { name: string; description?: string }[];
  paths?: Record<string, Record<string, Record<string, unknown>>>;
  components?: { schemas?: Record<string, unknown> };
};

// A callback body schema as plain JSON (no symbols, no $id) for the components section, in
// OpenAPI 3.0's dialect like the route schemas.
function callbackSchema(schema: unknown): unknown {
  const plain: unknown = JSON.parse(JSON.stringify(schema), (key, value: unknown) =>
    key === '$id' ? undefined : value,
  );
  toOpenApi30(plain);
  return plain;
}

const header = (name: string, description: string, required: boolean) => ({
  name,
  in: 'header',
  required,
  description,
  schema: { type: 'string' },
});

// OpenAPI 3.0 has no top-level webhooks, so the usage callback hangs off the operation that
// reveals where it is sent.
const usageCallback = (expression: string) => ({
  [expression]: {
    post: {
      summary: 'Usage callback (sent by the service)',
      description:
        'Sent when data is used on an eSIM (and on first attachment or a country change). The shape follows the organisation callback version: V2 (default, reduced, unsigned) or V3 (full, signed). Any 2xx acknowledges; anything else, a timeout or a refused connection is retried with exponential back-off and jitter for about a day, then marked failed. Delivery is at least once: deduplicate on the event id header.',
      parameters: [
        header(
          CALLBACK_HEADERS.signature,
          'V3 only: base64(HMAC-SHA256(key = the organisation API key, message = the exact raw body bytes)). Rotating the API key changes it.',
          false,
        ),
        header(
          CALLBACK_HEADERS.eventId,
          'Id of the event, the same on every retry: use it to deduplicate.',
          true,
        ),
        header(
          CALLBACK_HEADERS.timestamp,
          'When the event happened, RFC 3339 UTC. Not part of the signature.',
          true,
        ),
        header(
          CALLBACK_HEADERS.attempt,
          'Number of this attempt at delivering the event, from 1; a resend continues the count.',
          true,
        ),
        header(
          CALLBACK_HEADERS.userAgent,
          `\`${CALLBACK_USER_AGENT} instance/<id>\`, naming the sending instance.`,
          true,
        ),
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              oneOf: [
                { $ref: '#/components/schemas/UsageCallbackV3' },
                { $ref: '#/components/schemas/UsageCallbackV2' },
              ],
            },
          },
        },
      },
      responses: {
        '2XX': { description: 'Acknowledged; the delivery is complete.' },
        default: { description: 'Not acknowledged; the delivery is retried.' },
      },
    },
  },
});

// Route schemas are JSON Schema as TypeBox writes it; a few keywords differ in OpenAPI 3.0's
// schema dialect and are rewritten here, so route authors need not know the difference.
function toOpenApi30(node: unknown, isNameMap = false): void {
  if (Array.isArray(node)) {
    for (const item of node) toOpenApi30(item);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Record<string, unknown>;
  // In `properties` (and other maps of names) the keys are field names, not keywords.
  if (isNameMap) {
    for (const value of Object.values(schema)) toOpenApi30(value);
    return;
  }
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof schema[exclusive] === 'number') {
      schema[bound] = schema[exclusive];
      schema[exclusive] = true;
    }
  }
  if ('const' in schema) {
    schema['enum'] = [schema['const']];
    delete schema['const'];
  }
  if (Array.isArray(schema['examples']) && !('example' in schema)) {
    schema['example'] = schema['examples'][0];
    delete schema['examples'];
  }
  for (const [key, value] of Object.entries(schema)) {
    toOpenApi30(value, NAME_MAPS.has(key));
  }
}

const NAME_MAPS = new Set([
  'properties',
  'patternProperties',
  'paths',
  'schemas',
  'responses',
  'content',
  'callbacks',
]);

type Media = { schema?: Record<string, unknown>; example?: unknown };
type Response = { description?: string; content?: Record<string, Media> };

/**
 * The success answer of an operation gets its description and example from
 * openapi-responses.ts unless its route set them (Fastify's placeholder is "Default Response").
 */
function describeSuccess(
  operation: Record<string, unknown>,
  version: ApiVersion | undefined,
): void {
  const id = operation['operationId'];
  const responses = operation['responses'] as Record<string, Response> | undefined;
  if (typeof id !== 'string' || responses === undefined) return;
  const success = Object.entries(responses).find(([status]) => status.startsWith('2'))?.[1];
  if (success === undefined) return;
  const description = SUCCESS_DESCRIPTIONS[id];
  if (
    description !== undefined &&
    (success.description ?? 'Default Response') === 'Default Response'
  ) {
    success.description = description;
  }
  const media = success.content?.['application/json'];
  const example = version === undefined ? EXAMPLES[id] : exampleIn(version, id, EXAMPLES[id]);
  if (media !== undefined && example !== undefined && media.example === undefined) {
    if (media.schema?.['example'] === undefined) media.example = example;
  }
}

/**
 * The request body's and the parameters' examples, so "Try it out" pre-fills a request the demo
 * organisation's data answers (openapi-request-examples.ts). A route's own example wins.
 */
function exampleRequest(operation: Record<string, unknown>, version: string): void {
  const id = operation['operationId'];
  if (typeof id !== 'string') return;
  const body = operation['requestBody'] as { content?: Record<string, Media> } | undefined;
  const media = body?.content?.['application/json'];
  if (media !== undefined && media.example === undefined) {
    const example = requestExample(version, id);
    if (example !== undefined) media.example = example;
  }
  const parameters = (operation['parameters'] ?? []) as Parameter[];
  for (const parameter of parameters) {
    if (parameter.example !== undefined || parameter.schema?.['example'] !== undefined) continue;
    const example = parameterExample(version, id, parameter);
    if (example !== undefined) parameter.example = example;
  }
}

type Parameter = {
  name: string;
  in: string;
  example?: unknown;
  schema?: Record<string, unknown>;
};

// The page lists a tag's operations in the order of the document's paths. These path items go to
// the end of the document, in this order, so that trying the operations from the top of the page
// down never meets something an operation above destroyed (a path item holds all its methods).
// v2.5's suspend already comes after SMS, the one operation a suspended eSIM refuses.
const LAST_PATHS: readonly string[] = [
  // Revoke by name takes the oldest unused assignment: after the revokes by id, which name theirs.
  '/esims/{iccid}/bundles/{name}',
  // v2.5 (where it has a DELETE): deleting deactivates the eSIM every operation above uses.
  '/esims/{iccid}',
];

/** The paths in the page's order for "Try it out" (see LAST_PATHS). */
function orderForTryIt(
  paths: Record<string, Record<string, Record<string, unknown>>>,
  prefix: string,
): Record<string, Record<string, Record<string, unknown>>> {
  const last = LAST_PATHS.map((path) => `${prefix}${path}`).filter(
    (p) =>
      paths[p] !== undefined && (p !== `${prefix}/esims/{iccid}` || 'delete' in (paths[p] ?? {})),
  );
  const ordered: Record<string, Record<string, Record<string, unknown>>> = {};
  for (const [path, item] of Object.entries(paths)) if (!last.includes(path)) ordered[path] = item;
  for (const path of last) ordered[path] = paths[path] ?? {};
  return ordered;
}

function transformObject(
  input: { openapiObject: Partial<OpenApiObject> },
  version?: ApiVersion,
): OpenApiObject {
  const document = input.openapiObject as OpenApiObject;
  const prefix = version?.prefix ?? API_PREFIX;
  toOpenApi30(document.paths);
  toOpenApi30(document.components?.schemas);
  document.components ??= {};
  document.components.schemas ??= {};
  document.components.schemas['UsageCallbackV3'] = callbackSchema(UsageCallbackV3);
  document.components.schemas['UsageCallbackV2'] = callbackSchema(UsageCallbackV2);
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      describeSuccess(operation, version);
      exampleRequest(operation, version?.name ?? V2_1);
    }
  }
  if (version !== undefined) addVersionExamples(document.paths);
  if (document.paths !== undefined) document.paths = orderForTryIt(document.paths, prefix);
  if (document.info !== undefined) {
    const snapshot = document.paths?.['/_sim/snapshot']?.['put'] !== undefined;
    document.info.description = `${document.info.description ?? ''}\n\n${tryItOut(snapshot)}`;
  }
  const organisation = document.paths?.[`${prefix}/organisation`]?.['get'];
  if (organisation !== undefined) {
    organisation['callbacks'] = {
      usage: usageCallback(
        version === undefined || organisationWrapped(version)
          ? '{$response.body#/organisations/0/callbackUrl}'
          : '{$response.body#/callbackUrl}',
      ),
    };
  }
  // Every tag an operation uses is listed, so the documentation page shows a section for it, and
  // only those: a version without the simulator's operations shows no empty Simulator section.
  const used = new Set<string>();
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const tag of (operation['tags'] as string[] | undefined) ?? []) used.add(tag);
    }
  }
  const tags = (document.tags ?? []).filter((t) => used.has(t.name));
  for (const tag of used) if (!tags.some((t) => t.name === tag)) tags.push({ name: tag });
  document.tags = tags;
  return document;
}

/** How to use "Try it out", at the top of each version's page. */
function tryItOut(snapshot: boolean): string {
  const paste = snapshot
    ? ' The one value to paste is the body of PUT /_sim/snapshot: what GET /_sim/snapshot answered just above it.'
    : '';
  return `**Try it out.** Click **Authorize** and paste the organisation API key into \`apiKeyAuth\`: a simulator's first start prints the demo organisation's (\`API key: esim_…\`), and the portal's **API & callbacks** page shows an organisation's under **Reveal key**. This browser keeps the key until **Logout**, also when you switch versions in **Select a definition**. Every operation is filled in with the demo organisation's data (eSIM \`${EXAMPLE_ICCID}\`, order \`${EXAMPLE_ORDER_REFERENCE}\`, bundle \`${EXAMPLE_BUNDLE}\`), so on a fresh demo database (a simulator's first start, on an empty data folder) **Try it out** then **Execute** answers 2xx unedited, operation after operation from the top of the page down: what revokes, suspends or deletes comes after what needs it.${paste} To run a page from the top again, start the simulator on an empty data folder.`;
}

/** The name under which a later version's document is decorated on the app. */
const decoratorOf = (version: ApiVersion): string => `openapiV${version.name.replace('.', '_')}`;

/** A later version's generated document (the v2.1 document is `app.swagger()`). */
export function versionDocument(app: FastifyInstance, version: ApiVersion): unknown {
  const build = (app as unknown as Record<string, (() => unknown) | undefined>)[
    decoratorOf(version)
  ];
  if (build === undefined) throw new Error(`no document for v${version.name}`);
  return build.call(app);
}

/**
 * Registers the generator of the v2.1 document (`app.swagger()`, served at /v2.1/openapi.json and
 * /docs/json) and one per later version, each fed by the same routes.
 */
export async function registerOpenApi(
  app: FastifyInstance,
  publicBaseUrl: string,
  versions: readonly ApiVersion[] = [],
): Promise<void> {
  const routes: RegisteredRoute[] = [];
  registries.set(app, routes);
  app.addHook('onRoute', (route) => {
    // Read when asked, like @fastify/swagger does: a scope's own onRoute hook (the portal's)
    // runs after this one and may still hide the route.
    const isHidden = (): boolean => (route.schema as Schema | undefined)?.['hide'] === true;
    for (const method of methodsOf(route)) {
      routes.push({
        method,
        url: route.url,
        get hidden() {
          return isHidden();
        },
      });
    }
  });
  await app.register(swagger, swaggerOptions(publicBaseUrl, undefined));
  for (const version of versions) {
    await app.register(swagger, swaggerOptions(publicBaseUrl, version));
  }
}

function swaggerOptions(publicBaseUrl: string, version: ApiVersion | undefined): SwaggerOptions {
  return {
    ...(version === undefined ? {} : { decorator: decoratorOf(version) }),
    openapi: {
      openapi: '3.0.1',
      info: {
        title: 'eSIM Bundle Service',
        version: version?.documentVersion ?? API_VERSION,
        description: version === undefined ? DESCRIPTION : versionDescription(version),
        license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
      },
      // Relative unless PUBLIC_BASE_URL is set, so "Try it out" on the documentation page calls
      // the address the page was loaded from, whatever host or port that is.
      servers: [
        publicBaseUrl === ''
          ? {
              url: '/',
              description:
                'This service, on the address this document was loaded from (PUBLIC_BASE_URL unset)',
            }
          : { url: publicBaseUrl, description: 'This service (PUBLIC_BASE_URL)' },
      ],
      tags: TAGS,
      components: {
        securitySchemes: {
          apiKeyAuth: {
            type: 'apiKey' as const,
            in: 'header',
            name: 'X-API-Key',
            description: 'The organisation API key. Accepted on every method.',
          },
          apiKeyQueryAuth: {
            type: 'apiKey' as const,
            in: 'query',
            name: 'api_key',
            description: 'The organisation API key, on GET and HEAD only (e.g. in a browser).',
          },
          simAdminToken: {
            type: 'http' as const,
            scheme: 'bearer',
            description:
              'Simulator control plane only: the SIM_ADMIN_TOKEN setting, required when it is set.',
          },
        },
      },
    },
    // Shared schemas keep their $id as their component name (Error, Country).
    refResolver: {
      buildLocalReference: (json: Record<string, unknown>, _b: unknown, _f: unknown, i: number) =>
        String(json['$id'] ?? `def-${i}`),
    },
    transform: version === undefined ? transform : versionTransform(version),
    transformObject: ((input: { openapiObject: Partial<OpenApiObject> }) =>
      transformObject(input, version)) as never,
  };
}

export async function registerDocsPage(
  app: FastifyInstance,
  versions: readonly ApiVersion[] = [],
): Promise<void> {
  // One tab (the page's document selector) per version, v2.1 first; /docs/json is v2.1's.
  const urls = versions.map((v) => ({ url: `${v.prefix}/openapi.json`, name: `v${v.name}` }));
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: {
      deepLinking: true,
      // The key given to Authorize stays in the browser (local storage) until Logout, so it
      // survives switching the version in the page's definition selector, and a reload.
      persistAuthorization: true,
      ...(urls.length > 1 ? { urls, 'urls.primaryName': urls[0]?.name } : {}),
    } as never,
  });
}
