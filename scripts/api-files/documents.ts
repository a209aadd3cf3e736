import type { FastifyInstance } from 'fastify';
import type { OpenAPI3 } from 'openapi-typescript';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { VERSIONS } from '../../src/http/versions/index.js';
import { openServices } from '../../src/main.js';

// The OpenAPI document of every version, as a simulator serves it (an app on a throwaway
// in-memory database): what the packaged clients, the Postman collections and the .http files
// are generated from.

/** The parts of an OpenAPI 3.0 document the generators read. */
export interface Document {
  readonly openapi: string;
  readonly info: {
    readonly title: string;
    readonly version: string;
    readonly description?: string;
  };
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

export interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly required?: boolean;
  readonly description?: string;
  readonly example?: unknown;
  readonly schema?: { readonly default?: unknown; readonly example?: unknown };
}

export interface Operation {
  readonly method: string;
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly tag: string;
  /** Whether the operation needs the organisation's API key. */
  readonly secured: boolean;
  readonly parameters: readonly Parameter[];
  readonly body?: {
    readonly required: boolean;
    readonly type: string;
    readonly example?: unknown;
  };
  /** Media types of the 2xx answers, by status. */
  readonly answers: Readonly<Record<string, readonly string[]>>;
}

export interface VersionDocument {
  /** "2.1" … "2.5". */
  readonly version: string;
  readonly document: Document;
  /** The same document, whole, as openapi-typescript reads it. */
  readonly source: OpenAPI3;
}

export async function liveDocuments(): Promise<VersionDocument[]> {
  const services = await openServices(testConfig());
  let app: FastifyInstance | undefined;
  try {
    app = await buildApp(services.deps, { logLevel: 'silent' });
    const documents: VersionDocument[] = [];
    for (const { name } of VERSIONS) {
      const res = await app.inject({ method: 'GET', url: `/v${name}/openapi.json` });
      if (res.statusCode !== 200)
        throw new Error(`/v${name}/openapi.json answered ${res.statusCode}`);
      documents.push({
        version: name,
        document: res.json<Document>(),
        source: res.json<OpenAPI3>(),
      });
    }
    return documents;
  } finally {
    await app?.close();
    await services.close();
  }
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

interface RawOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: {
    required?: boolean;
    content: Record<string, { example?: unknown; examples?: Record<string, { value?: unknown }> }>;
  };
  responses?: Record<string, { content?: Record<string, unknown> }>;
}

/** A value to start a parameter with: its example, else its default, else nothing. */
export function startingValue(parameter: Parameter): string {
  const value = parameter.example ?? parameter.schema?.example ?? parameter.schema?.default;
  return value === undefined ? '' : String(value);
}

/** Every operation of a document, in the document's order. */
export function operationsOf(document: Document): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, value] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const raw = value as RawOperation;
      if (raw.operationId === undefined) throw new Error(`${method} ${path} has no operationId`);
      const content = Object.entries(raw.requestBody?.content ?? {})[0];
      const answers: Record<string, string[]> = {};
      for (const [status, answer] of Object.entries(raw.responses ?? {})) {
        if (/^2\d\d$/.test(status)) answers[status] = Object.keys(answer.content ?? {});
      }
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: raw.operationId,
        summary: raw.summary ?? raw.operationId,
        description: raw.description ?? '',
        tag: raw.tags?.[0] ?? 'Other',
        secured: (raw.security ?? []).length > 0,
        parameters: raw.parameters ?? [],
        ...(content === undefined
          ? {}
          : {
              body: {
                required: raw.requestBody?.required === true,
                type: content[0],
                example: content[1].example ?? Object.values(content[1].examples ?? {})[0]?.value,
              },
            }),
        answers,
      });
    }
  }
  return operations;
}
