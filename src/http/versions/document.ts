import { ERROR_CATALOGUE } from '../../domain/errors/error-codes.js';
import { HTTP_ERROR_CATALOGUE } from '../http-error-codes.js';
import { EXAMPLE_RESULTS } from './example-results.js';
import { LATER_VERSIONS, V2_1 } from './index.js';
import { LIVE_OPERATIONS_BY_VERSION } from './live-operations.js';
import type { Presenter } from './presenter.js';
import type { Operation as Presented, Results } from './results.js';
import type { ApiVersion } from './version.js';

// What a later version's OpenAPI document needs beyond the routes (http/openapi.ts builds it).

/** The later version a route path belongs to, if any. */
export function laterVersionOf(url: string): ApiVersion | undefined {
  return LATER_VERSIONS.find((v) => url === v.prefix || url.startsWith(`${v.prefix}/`));
}

const NONE: ReadonlySet<string> = new Set();

/** The live operations of a later version (`METHOD /path`); the others are extensions. */
export function liveOperations(version: ApiVersion): ReadonlySet<string> {
  return LIVE_OPERATIONS_BY_VERSION[version.name] ?? NONE;
}

export function versionDescription(version: ApiVersion): string {
  return `Prepaid eSIM data bundles, version ${version.name} of the interface: the same organisations, orders, eSIMs and ledger as every other version (an order placed through /v2.1 reads through /v${version.name} and the reverse), in this version's wire shapes.

${version.summary}

**Authentication.** The organisation API key in the \`X-API-Key\` header on every request; on GET and HEAD the \`api_key\` query parameter is accepted too. A missing or invalid key is a 403.

**Errors.** Every error body is \`{"message": "...", "code": "..."}\`, as in every version (docs/errors.md).

**Bodies.** A JSON body is read as JSON with or without \`Content-Type: application/json\`; field names match case-insensitively and unknown fields are ignored.

**Extensions.** Operations marked \`x-extension: true\` are additions of this service that the live v${version.name} does not document.`;
}

/** Whether the version answers GET /organisation as v2.1 does, in `organisations: [...]`. */
export function organisationWrapped(version: ApiVersion): boolean {
  return version.presenters.getOrganisation === V2_1.presenters.getOrganisation;
}

const isOperation = (version: ApiVersion, operationId: string): operationId is Presented =>
  Object.hasOwn(version.presenters, operationId);

/**
 * An operation's example on a later version: v2.1's recorded example where the version answers
 * as v2.1 does; otherwise the version's presenter's answer to the result behind v2.1's example
 * (example-results.ts), so that it has the version's shape and the values of a real answer.
 */
export function exampleIn(version: ApiVersion, operationId: string, example: unknown): unknown {
  const own = version.requests[operationId]?.example;
  if (own !== undefined) return own;
  if (example === undefined) return undefined;
  if (operationId === 'listCatalogue' && Array.isArray(example)) {
    if (version.cataloguePage === V2_1.cataloguePage) return example;
    // One page of 50 holding the whole example.
    const items = example.map((item) => Buffer.from(JSON.stringify(item)));
    const page = version.cataloguePage.write(items, { rows: items.length, pageSize: 50 }, 'USD');
    return JSON.parse(page.toString('utf8')) as unknown;
  }
  if (!isOperation(version, operationId)) return example;
  return presentExample(version, operationId, example);
}

function presentExample<K extends Presented>(
  version: ApiVersion,
  operationId: K,
  example: unknown,
): unknown {
  const presenter: Presenter<Results[K]> = version.presenters[operationId];
  if (presenter === V2_1.presenters[operationId]) return example;
  const read = EXAMPLE_RESULTS[operationId] as (v21: unknown) => Results[K];
  return presenter.present(read(example));
}

/** An error answer's example: the first catalogue code of that status, with its message. */
function errorExample(status: string): { message: string; code: string } | undefined {
  for (const [code, entry] of Object.entries({ ...ERROR_CATALOGUE, ...HTTP_ERROR_CATALOGUE })) {
    if (String(entry.status) === status) return { message: entry.message, code };
  }
  return undefined;
}

type Media = { schema?: unknown; example?: unknown };
type Operation = {
  responses?: Record<string, { content?: Record<string, Media> }>;
};

/**
 * A later version's document gives every JSON error answer an example (success answers get theirs
 * from the recorded answers, through exampleIn; request bodies theirs in http/openapi.ts).
 */
export function addVersionExamples(
  paths: Record<string, Record<string, Operation>> | undefined,
): void {
  for (const operations of Object.values(paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const media = response.content?.['application/json'];
        if (status.startsWith('2') || media === undefined || media.example !== undefined) continue;
        // An answer whose schema carries its own example (the 503 while processing) keeps it.
        if ((media.schema as { example?: unknown } | undefined)?.example !== undefined) continue;
        const example = errorExample(status);
        if (example !== undefined) media.example = example;
      }
    }
  }
}
