// What every generated client (src/v2.x/index.ts) runs: one HTTP call with fetch. It
// knows no operation; the generated files give each operation its name, path and types.

export interface ClientOptions {
  /** Where the service answers, e.g. http://127.0.0.1:8080 (no version path). */
  readonly baseUrl: string;
  /** The organisation's API key, sent as X-API-Key. */
  readonly apiKey?: string;
  /** Headers added to every request, e.g. `Authorization` for a simulator's SIM_ADMIN_TOKEN. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The fetch to call with (default: the global one). */
  readonly fetch?: typeof fetch;
}

/** What one call may carry; each generated method types it exactly. */
export interface CallInput {
  readonly path?: object;
  readonly query?: object;
  readonly headers?: object;
  readonly body?: unknown;
  /** Aborts the call. */
  readonly signal?: AbortSignal;
}

/** An operation as the generator describes it. */
export interface OperationSpec {
  readonly method: string;
  readonly path: string;
  /** The media type of the request body, when the operation takes one. */
  readonly bodyType?: string;
}

/** A non-2xx answer: the service's `{"message", "code"}`, with the status. */
export class EsimApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly body: unknown;
  readonly response: Response;

  constructor(response: Response, body: unknown) {
    const fields =
      typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const message = typeof fields['message'] === 'string' ? fields['message'] : response.statusText;
    super(`${response.status}: ${message}`);
    this.name = 'EsimApiError';
    this.status = response.status;
    this.code = typeof fields['code'] === 'string' ? fields['code'] : undefined;
    this.body = body;
    this.response = response;
  }
}

/** A path template such as /v2.5/esims/{iccid} with its parameters filled in. */
function fillPath(template: string, params: object | undefined): string {
  const values = (params ?? {}) as Record<string, unknown>;
  return template.replace(/\{([^}]+)\}/g, (_all, name: string) => {
    const value = values[name];
    if (value === undefined || value === null)
      throw new TypeError(`path parameter ${name} is missing`);
    return encodeURIComponent(String(value));
  });
}

function queryString(query: object | undefined): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** The body of an answer by its media type: JSON parsed, text as a string, anything else bytes. */
async function readBody(response: Response): Promise<unknown> {
  const type = (response.headers.get('content-type') ?? '').toLowerCase();
  if (response.status === 204 || response.status === 304) return undefined;
  if (/^application\/([\w.+-]+\+)?json\b/.test(type)) {
    const text = await response.text();
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  }
  if (type.startsWith('text/')) return response.text();
  return new Uint8Array(await response.arrayBuffer());
}

/** The function a generated client calls for every operation; T is the method's answer type. */
export type Caller = <T>(operation: OperationSpec, input: CallInput | undefined) => Promise<T>;

export function createCaller(options: ClientOptions): Caller {
  const base = options.baseUrl.replace(/\/+$/, '');
  const send = options.fetch ?? globalThis.fetch;
  return async <T>(operation: OperationSpec, input: CallInput | undefined): Promise<T> => {
    const headers = new Headers({ accept: 'application/json, */*;q=0.5' });
    if (options.apiKey !== undefined) headers.set('x-api-key', options.apiKey);
    for (const extra of [options.headers, input?.headers]) {
      for (const [name, value] of Object.entries(extra ?? {})) {
        if (value !== undefined && value !== null) headers.set(name, String(value));
      }
    }
    let body: string | undefined;
    if (input?.body !== undefined) {
      headers.set('content-type', operation.bodyType ?? 'application/json');
      body = JSON.stringify(input.body);
    }
    const url = base + fillPath(operation.path, input?.path) + queryString(input?.query);
    const response = await send(url, {
      method: operation.method,
      headers,
      ...(body === undefined ? {} : { body }),
      ...(input?.signal === undefined ? {} : { signal: input.signal }),
    });
    const answer = await readBody(response);
    if (!response.ok) throw new EsimApiError(response, answer);
    // The generated method's type is the document's answer for this operation.
    return answer as T;
  };
}
