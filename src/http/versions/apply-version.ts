import type { TObject, TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { PagePresenter, ApiVersion } from './version.js';

// Applies a version to a route as it is registered in the version's scope (an onRoute hook):
// the route keeps its handler; its config carries the version's presenters and capabilities,
// and its schemas, and hooks before the handler, change where the version reads a request
// differently.

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The catalogue page presenter of the version whose scope the route is registered in. */
    cataloguePage?: PagePresenter;
  }
}

type Schema = Record<string, unknown>;

// Hooks in Fastify's callback form: an async hook costs a promise and a microtask turn per request.
type Done = (error?: Error | null) => void;
type Hook = (request: FastifyRequest, reply: FastifyReply, done: Done) => void;

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

function hooksOf(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** The responses with the success answer's schema replaced. */
function withSuccess(responses: Schema | undefined, schema: TSchema): Schema {
  const next = { ...responses };
  const status = Object.keys(next).find((s) => s.startsWith('2')) ?? '200';
  next[status] = schema;
  return next;
}

/** The success schema this version answers the operation with, if it is its own. */
function successSchema(version: ApiVersion, operationId: string): TSchema | undefined {
  if (operationId === 'listCatalogue') return version.cataloguePage.schema;
  if (Object.hasOwn(version.presenters, operationId)) {
    return version.presenters[operationId as keyof ApiVersion['presenters']].schema;
  }
  return version.requests[operationId]?.response;
}

export function applyVersion(version: ApiVersion, route: RouteOptions): void {
  route.config = {
    ...route.config,
    versionName: version.name,
    capabilities: version.capabilities,
    presenters: version.presenters,
    cataloguePage: version.cataloguePage,
    errorMessage: version.errorMessage,
    ...(version.bodyWithoutContentType ? { bodyWithoutContentType: true } : {}),
  };
  const schema = route.schema as Schema | undefined;
  const operationId = schema?.['operationId'];
  if (typeof operationId !== 'string') return;
  const next: Schema = { ...schema };
  const success = successSchema(version, operationId);
  if (success !== undefined) next['response'] = withSuccess(next['response'] as Schema, success);
  const wire = version.requests[operationId];
  if (wire !== undefined) {
    const derived = (own: TSchema | ((shared: TObject) => TSchema), part: string): TSchema =>
      typeof own === 'function' ? own(schema?.[part] as TObject) : own;
    if (wire.querystring !== undefined) {
      next['querystring'] = derived(wire.querystring, 'querystring');
    }
    if (wire.body !== undefined) next['body'] = derived(wire.body, 'body');
    if (wire.deprecated === true) next['deprecated'] = true;
    if (wire.description !== undefined) next['description'] = wire.description;
    if (wire.errors !== undefined) {
      next['response'] = { ...(next['response'] as Schema | undefined), ...wire.errors };
    }
    if (wire.lenient !== undefined) {
      // Before the route's own preValidation hooks (which the shared body leniency runs after).
      route.preValidation = [guarded(wire.lenient), ...hooksOf(route.preValidation)] as never;
    }
    if (wire.request !== undefined) {
      route.preHandler = [guarded(wire.request), ...hooksOf(route.preHandler)] as never;
    }
  }
  route.schema = next;
}
