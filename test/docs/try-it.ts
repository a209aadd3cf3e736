// What the /docs page ("Try it out", then Execute) sends for each operation of an OpenAPI document,
// unedited, in the order the page lists them: swagger-ui groups operations under their first tag,
// the tags in the document's `tags` order (then any other in the order met), each tag's
// operations in the order of the document's paths and, within a path, its methods. A parameter
// starts with its example, else its schema's example, else its schema's default (an array
// example is sent as the parameter repeated); the body is its media type's example. The API key
// goes in X-API-Key where the operation's security names apiKeyAuth (after Authorize).

export const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

export interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly required?: boolean;
  readonly example?: unknown;
  readonly schema?: { readonly example?: unknown; readonly default?: unknown };
}

export interface Operation {
  readonly operationId?: string;
  readonly tags?: readonly string[];
  readonly description?: string;
  readonly security?: readonly Record<string, unknown>[];
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: {
    readonly required?: boolean;
    readonly content?: Readonly<Record<string, { example?: unknown }>>;
  };
}

export interface Document {
  readonly tags?: readonly { readonly name: string }[];
  readonly security?: readonly Record<string, unknown>[];
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
}

export interface PageOperation {
  readonly method: string;
  readonly path: string;
  readonly operation: Operation;
  /** `GET /v2.1/esims/{iccid} (getEsim)` */
  readonly name: string;
}

/** The operations as the page lists them, top to bottom. */
export function pageOperations(doc: Document): PageOperation[] {
  const byTag = new Map<string, PageOperation[]>();
  for (const tag of doc.tags ?? []) byTag.set(tag.name, []);
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const name = `${method.toUpperCase()} ${path} (${operation.operationId ?? '?'})`;
      const tag = operation.tags?.[0] ?? 'default';
      byTag.set(tag, [...(byTag.get(tag) ?? []), { method, path, operation, name }]);
    }
  }
  return [...byTag.values()].flat();
}

/** A parameter's starting value on the page, or undefined when it starts empty. */
export function startingValue(p: Parameter): unknown {
  return p.example ?? p.schema?.example ?? p.schema?.default;
}

export interface PrefilledRequest {
  readonly method: string;
  /** Path and query string. */
  readonly url: string;
  readonly headers: Record<string, string>;
  /** The body as the page's text box holds it (JSON text), if the operation takes one. */
  readonly body?: string;
  readonly contentType?: string;
  /** Required parameters the page would ask for before it sends anything. */
  readonly missing: readonly string[];
}

const text = (value: unknown): string =>
  typeof value === 'string' ? value : JSON.stringify(value);

/** The request the page sends for the operation as prefilled, after Authorize with apiKey. */
export function prefilledRequest(
  doc: Document,
  op: PageOperation,
  apiKey: string,
): PrefilledRequest {
  const missing: string[] = [];
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  let path = op.path;
  for (const p of op.operation.parameters ?? []) {
    const value = startingValue(p);
    if (value === undefined || value === '') {
      if (p.required === true) missing.push(`${p.in} ${p.name}`);
      continue;
    }
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(text(value)));
    else if (p.in === 'query') {
      for (const v of Array.isArray(value) ? value : [value]) query.append(p.name, text(v));
    } else if (p.in === 'header') headers[p.name] = text(value);
  }
  const security = op.operation.security ?? doc.security ?? [];
  if (security.some((s) => 'apiKeyAuth' in s)) headers['x-api-key'] = apiKey;
  const media = Object.entries(op.operation.requestBody?.content ?? {})[0];
  let body: string | undefined;
  let contentType: string | undefined;
  if (media !== undefined) {
    contentType = media[0];
    if (media[1].example === undefined) missing.push('request body example');
    else body = JSON.stringify(media[1].example, null, 2);
  }
  const qs = query.toString();
  return {
    method: op.method.toUpperCase(),
    url: qs === '' ? path : `${path}?${qs}`,
    headers,
    ...(body === undefined ? {} : { body }),
    ...(contentType === undefined ? {} : { contentType }),
    missing,
  };
}
