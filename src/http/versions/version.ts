import type { TObject, TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps.js';
import type { Api } from '../api.js';
import type { Capability } from './capabilities.js';
import type { Presenters } from './presenter.js';
import type { ErrorMessage } from './presenters/errors.js';

// An API version: the shared routes (routes/<resource>/<action>.ts) served under its prefix with
// its presenters (result -> body, presenter.ts), its capabilities (capabilities.ts), and what it
// reads differently in a request (`requests`). Nothing here reaches the domain or the store.

/** What a version reads differently of one operation's request (by operationId). */
export interface RequestWire {
  /** The query string as this version documents and validates it (or made from the route's). */
  readonly querystring?: TSchema | ((shared: TObject) => TSchema);
  /** The request body as this version documents and validates it (or made from the route's). */
  readonly body?: TSchema | ((shared: TObject) => TSchema);
  /**
   * Runs before validation: rewrites what real clients of this version send into the shape of
   * `body` (a flat order, a body-less PUT with its fields in the query).
   */
  readonly lenient?: (request: FastifyRequest) => void;
  /** Runs after validation: turns this version's request into what the shared handler reads. */
  readonly request?: (request: FastifyRequest) => void;
  /** The success answer's schema, for an operation without a presenter (files, applies). */
  readonly response?: TSchema;
  /** Error answers this version adds to the operation (e.g. 503 while processing), by status. */
  readonly errors?: Readonly<Record<string, TSchema>>;
  /** The success example of this version's document, for an operation without a presenter. */
  readonly example?: unknown;
  /** Marked deprecated in this version's document. */
  readonly deprecated?: boolean;
  /** Replaces the route's description in this version's document. */
  readonly description?: string;
}

/** The paging counters of a page, for the shapes that state them. */
export interface PageCounters {
  /** Items matching the request, over all pages. */
  readonly rows: number;
  /** Items per page. */
  readonly pageSize: number;
}

/**
 * The catalogue page's presenter: the route joins a page from its bundles' prebuilt JSON (each
 * bundle's bytes as v2.1 writes it) and the version writes it in its shape in one go, with no
 * second copy of the page and no parse.
 */
export interface PagePresenter {
  readonly schema: TSchema;
  /** What the bytes depend on besides the items and the counters (the caller's currency). */
  readonly key: (currency: string) => string;
  readonly write: (items: readonly Buffer[], counters: PageCounters, currency: string) => Buffer;
}

/** Extra routes of a version: registered in its scope like the shared ones. */
export type VersionRoutes = (api: Api, deps: AppDeps) => void;

/** One API version. */
export interface ApiVersion {
  /** '2.4' */
  readonly name: string;
  /** '/v2.4' */
  readonly prefix: string;
  /** The document's info.version, '2.4.0'. */
  readonly documentVersion: string;
  readonly presenters: Presenters;
  readonly cataloguePage: PagePresenter;
  /** The message of a refusal (DomainError) in this version's money. */
  readonly errorMessage: ErrorMessage;
  readonly capabilities: ReadonlySet<Capability>;
  /** The request differences of each operation, by operationId. */
  readonly requests: Readonly<Record<string, RequestWire>>;
  /** Routes only this version (and those built on it) has. */
  readonly extraRoutes: readonly VersionRoutes[];
  /** A JSON body sent without a Content-Type is read as JSON (live clients do this). */
  readonly bodyWithoutContentType: boolean;
  /** What the version changes, for the top of its document (markdown). */
  readonly summary: string;
}

/** The differences of a later version, stated against the version it builds on. */
export interface VersionChanges {
  readonly name: string;
  readonly summary: string;
  readonly presenters?: Partial<Presenters>;
  readonly cataloguePage?: PagePresenter;
  readonly errorMessage?: ErrorMessage;
  /** Capabilities added to the base's. */
  readonly capabilities?: readonly Capability[];
  readonly requests?: Readonly<Record<string, RequestWire>>;
  readonly extraRoutes?: readonly VersionRoutes[];
  readonly bodyWithoutContentType?: boolean;
}

/**
 * A version built on an earlier one: it keeps every difference of `base` and adds its own. For an
 * operation both change, the later version's request members replace the earlier's one by one.
 */
export function laterVersion(base: ApiVersion, changes: VersionChanges): ApiVersion {
  const requests: Record<string, RequestWire> = { ...base.requests };
  for (const [operationId, wire] of Object.entries(changes.requests ?? {})) {
    requests[operationId] = { ...requests[operationId], ...wire };
  }
  return {
    name: changes.name,
    prefix: `/v${changes.name}`,
    documentVersion: `${changes.name}.0`,
    presenters: { ...base.presenters, ...changes.presenters },
    cataloguePage: changes.cataloguePage ?? base.cataloguePage,
    errorMessage: changes.errorMessage ?? base.errorMessage,
    capabilities: new Set([...base.capabilities, ...(changes.capabilities ?? [])]),
    requests,
    extraRoutes: [...base.extraRoutes, ...(changes.extraRoutes ?? [])],
    bodyWithoutContentType: changes.bodyWithoutContentType ?? base.bodyWithoutContentType,
    summary: changes.summary,
  };
}
