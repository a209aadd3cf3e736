import type { TObject, TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { AppDeps } from '../../deps.js';
import type { Api } from '../api.js';
import { REPLAY_HEADER } from '../idempotency.js';

// An API version is the v2.1 routes seen through a set of wire differences: the same route
// definitions (routes/<resource>/<action>.ts), the same use cases, and per operation what this
// version reads and writes differently. Nothing here reaches the domain; a behaviour that differs
// between versions is a capability of the domain that a version's wire decides to use.

/** What a version changes of one operation (by operationId). Every member is optional. */
export interface RouteWire {
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
  /** The success answer's schema on this version (or made from the route's own). */
  readonly response?: TSchema | ((shared: TObject) => TSchema);
  /**
   * The shared handler's success answer (the v2.1 shape) in this version's shape. It may read
   * more (a promise), e.g. the balance an order left.
   */
  readonly answer?: (body: never, request: FastifyRequest, deps: AppDeps) => unknown;
  /** Same as `answer`, for the routes that join a page from prebuilt JSON (catalogue pages). */
  readonly page?: PageShape;
  /** Error answers this version adds to the operation (e.g. 503 while processing), by status. */
  readonly errors?: Readonly<Record<string, TSchema>>;
  /** The success example of this version's document, where `answer` cannot make it from v2.1's. */
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
 * A page in a version's shape, which the route joins from its items' prebuilt JSON (each item's
 * bytes as v2.1 writes them) in one go: no second copy of the page, no parse. Without one (v2.1)
 * the route answers the bare array of the items.
 */
export interface PageShape {
  /**
   * What the bytes depend on besides the items and the counters (e.g. the caller's currency);
   * a route that keeps written pages keeps them under it.
   */
  readonly key: (request: FastifyRequest) => string;
  readonly write: (
    items: readonly Buffer[],
    counters: PageCounters,
    request: FastifyRequest,
  ) => Buffer;
}

/** Extra routes of a version: registered in its scope like the shared ones. */
export type VersionRoutes = (api: Api, deps: AppDeps) => void;

/**
 * Behaviour switches: a shared handler that offers a capability only some versions use (async
 * processing of big orders, refunds to balance) asks `switchOn(request, name)`.
 */
export type Switches = Readonly<Record<string, boolean>>;

/** One API version: its path, and its differences from v2.1. */
export interface WireVersion {
  /** '2.4' */
  readonly name: string;
  /** '/v2.4' */
  readonly prefix: string;
  /** The document's info.version, '2.4.0'. */
  readonly documentVersion: string;
  /** The differences of each operation, by operationId. */
  readonly routes: Readonly<Record<string, RouteWire>>;
  /** Routes only this version (and those built on it) has. */
  readonly extraRoutes: readonly VersionRoutes[];
  /** A JSON body sent without a Content-Type is read as JSON (live clients do this). */
  readonly bodyWithoutContentType: boolean;
  /** Behaviour switches of this version (inherited by the later ones unless they reset them). */
  readonly switches: Switches;
  /** What the version changes, for the top of its document (markdown). */
  readonly summary: string;
}

/** The differences of a later version, stated against the version it builds on. */
export interface VersionChanges {
  readonly name: string;
  readonly summary: string;
  readonly routes?: Readonly<Record<string, RouteWire>>;
  readonly extraRoutes?: readonly VersionRoutes[];
  readonly bodyWithoutContentType?: boolean;
  readonly switches?: Switches;
}

/**
 * A version built on an earlier one: it keeps every difference of `base` and adds its own. For an
 * operation both change, the later version's members replace the earlier's one by one (a
 * version that changes only the answer keeps the base's request handling).
 */
export function laterVersion(base: WireVersion, changes: VersionChanges): WireVersion {
  const routes: Record<string, RouteWire> = { ...base.routes };
  for (const [operationId, wire] of Object.entries(changes.routes ?? {})) {
    routes[operationId] = { ...routes[operationId], ...wire };
  }
  return {
    name: changes.name,
    prefix: `/v${changes.name}`,
    documentVersion: `${changes.name}.0`,
    routes,
    extraRoutes: [...base.extraRoutes, ...(changes.extraRoutes ?? [])],
    bodyWithoutContentType: changes.bodyWithoutContentType ?? base.bodyWithoutContentType,
    switches: { ...base.switches, ...changes.switches },
    summary: changes.summary,
  };
}

// Hooks in Fastify's callback form: an async hook costs a promise and a microtask turn per request.
type Done = (error?: Error | null) => void;
type Hook = (request: FastifyRequest, reply: FastifyReply, done: Done) => void;
type PayloadDone = (error: Error | null, payload?: unknown) => void;
type PayloadHook = (
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: PayloadDone,
) => void;

/** Runs `step`; a throw becomes the hook's error (then the error handler answers). */
function guarded(step: (request: FastifyRequest) => void): Hook {
  return (request, _reply, done) => {
    try {
      step(request);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  };
}
type Schema = Record<string, unknown>;

function hooksOf(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

const isSuccess = (reply: FastifyReply): boolean => reply.statusCode < 300;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The behaviour switches of the version whose scope the route is registered in. */
    versionSwitches?: Switches;
    /** The version's `answer` of this route, for routes that serialise an answer themselves. */
    versionAnswer?: (body: never, request: FastifyRequest, deps: AppDeps) => unknown;
    /** The version's `page` of this route, for routes that join pages from prebuilt JSON. */
    versionPage?: PageShape;
  }
}

/**
 * The answer a route serialises itself (to keep the bytes, e.g. the eSIM detail cache) in the
 * shape of the version serving the request; v2.1's answer as it is. Only a synchronous `answer`.
 */
export function presentIn<T>(request: FastifyRequest, body: T): unknown {
  const answer = request.routeOptions.config.versionAnswer as
    ((body: T, request: FastifyRequest) => unknown) | undefined;
  return answer === undefined ? body : answer(body, request);
}

/** How the version serving this request shapes a page of prebuilt JSON; none on v2.1. */
export function pageShapeIn(request: FastifyRequest): PageShape | undefined {
  return request.routeOptions.config.versionPage;
}

/** Whether the version that serves this request turns a behaviour switch on. */
export function switchOn(request: FastifyRequest, name: string): boolean {
  return request.routeOptions.config.versionSwitches?.[name] === true;
}

/**
 * An Idempotency-Key replay sends the stored answer's bytes, which are v2.1's (what the use case
 * presented when it ran, whichever version asked): they are put in this version's shape too.
 */
function replayIn(
  answer: (body: unknown, request: FastifyRequest, deps: AppDeps) => unknown,
  deps: AppDeps,
): PayloadHook {
  return (request, reply, payload, done) => {
    if (
      !isSuccess(reply) ||
      typeof payload !== 'string' ||
      reply.getHeader(REPLAY_HEADER) !== 'true'
    ) {
      done(null, payload);
      return;
    }
    Promise.resolve()
      .then(() => answer(JSON.parse(payload) as unknown, request, deps))
      .then(
        (shaped) => done(null, JSON.stringify(shaped)),
        (error: unknown) => done(error as Error),
      );
  };
}

/**
 * Applies a version's differences to a route as it is registered in the version's scope (an
 * onRoute hook): the route keeps its handler; its schemas, and hooks either side of the handler,
 * change.
 */
export function applyWire(version: WireVersion, route: RouteOptions, deps: AppDeps): void {
  const schema = route.schema as Schema | undefined;
  const operationId = schema?.['operationId'];
  if (typeof operationId !== 'string') return;
  const wire = version.routes[operationId];
  if (wire === undefined) return;
  const next: Schema = { ...schema };
  const derived = (own: TSchema | ((shared: TObject) => TSchema), part: string): TSchema =>
    typeof own === 'function' ? own(schema?.[part] as TObject) : own;
  if (wire.querystring !== undefined)
    next['querystring'] = derived(wire.querystring, 'querystring');
  if (wire.body !== undefined) next['body'] = derived(wire.body, 'body');
  if (wire.deprecated === true) next['deprecated'] = true;
  if (wire.description !== undefined) next['description'] = wire.description;
  if (wire.errors !== undefined) {
    next['response'] = { ...(next['response'] as Schema | undefined), ...wire.errors };
  }
  if (wire.response !== undefined) {
    const responses = { ...(next['response'] as Schema | undefined) };
    const status = Object.keys(responses).find((s) => s.startsWith('2')) ?? '200';
    responses[status] =
      typeof wire.response === 'function'
        ? wire.response(responses[status] as TObject)
        : wire.response;
    next['response'] = responses;
  }
  route.schema = next;
  if (wire.lenient !== undefined) {
    const hook = guarded(wire.lenient);
    // Before the route's own preValidation hooks (which the shared body leniency runs after).
    route.preValidation = [hook, ...hooksOf(route.preValidation)] as never;
  }
  if (wire.request !== undefined) {
    const hook = guarded(wire.request);
    route.preHandler = [hook, ...hooksOf(route.preHandler)] as never;
  }
  if (wire.answer !== undefined) {
    route.config = { ...route.config, versionAnswer: wire.answer };
    const answer = wire.answer as (body: unknown, r: FastifyRequest, d: AppDeps) => unknown;
    const hook: PayloadHook = (request, reply, payload, done) => {
      if (!isSuccess(reply)) {
        done(null, payload);
        return;
      }
      let shaped: unknown;
      try {
        shaped = answer(payload, request, deps);
      } catch (error) {
        done(error as Error);
        return;
      }
      if (shaped instanceof Promise) {
        shaped.then(
          (value: unknown) => done(null, value),
          (error: unknown) => done(error as Error),
        );
      } else {
        done(null, shaped);
      }
    };
    route.preSerialization = [...hooksOf(route.preSerialization), hook] as never;
    route.onSend = [...hooksOf(route.onSend), replayIn(answer, deps)] as never;
  }
  if (wire.page !== undefined) {
    route.config = { ...route.config, versionPage: wire.page };
  }
}
