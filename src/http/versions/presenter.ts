import { Type } from '@sinclair/typebox';
import type { Static, TSchema, TUnsafe } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { DomainError } from '../../domain/errors/error-codes.js';
import type { ErrorMessage } from './presenters/errors.js';
import type { Operation, Results } from './results.js';

// A presenter turns one operation's result into one version's body, and names that body's
// schema (which validates the presenter's return type here and serialises the answer). It is
// pure: it reads no store and nothing of the request but the typed inputs in its result.
//
//   app.get('/orders/:ref', { schema: { response: { 200: presented(OrderSchema) } } },
//     async (request) => present(request, 'getOrder', await readOrder(...)));

export interface Presenter<R> {
  /** The schema of the version's success answer. */
  readonly schema: TSchema;
  readonly present: (result: R) => unknown;
}

/** A presenter whose body the compiler checks against its schema. */
export function presenter<R, S extends TSchema>(
  schema: S,
  present: (result: R) => Static<S>,
): Presenter<R> {
  return { schema, present };
}

/** One presenter per operation whose answer differs between versions. */
export type Presenters = { readonly [K in Operation]: Presenter<Results[K]> };

declare const PRESENTED: unique symbol;

/** A body a version's presenter made (or a stored one it made before). */
export interface Presented {
  readonly [PRESENTED]: true;
}

/**
 * A route's success schema for a body the serving version presents: v2.1's schema as the route
 * documents it; each version answers with its presenter's (versions/mount.ts).
 */
export function presented(schema: TSchema): TUnsafe<Presented> {
  return Type.Unsafe<Presented>(schema);
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The presenters of the version whose scope the route is registered in. */
    presenters?: Presenters;
    /** The name of that version, '2.4'. */
    versionName?: string;
    /** That version's message of a refusal. */
    errorMessage?: ErrorMessage;
  }
}

/** The message of a refusal in the money of the version serving the request. */
export function refusalMessage(request: FastifyRequest, error: DomainError): string {
  const message = request.routeOptions.config.errorMessage;
  // Null until the API key is read (decorated so), and on a route without one.
  const organisation = request.organisation as { currency: string } | null | undefined;
  return message === undefined ? error.message : message(error, organisation?.currency);
}

function presentersOf(request: FastifyRequest): Presenters {
  const presenters = request.routeOptions.config.presenters;
  if (presenters === undefined) throw new Error(`${request.url} is not served by an API version`);
  return presenters;
}

/** The body of `result` in the shape of the version serving the request. */
export function present<K extends Operation>(
  request: FastifyRequest,
  operation: K,
  result: Results[K],
): Presented {
  const presenter: Presenter<Results[K]> = presentersOf(request)[operation];
  return presenter.present(result) as Presented;
}

/**
 * What an Idempotency-Key record keeps of an answer: the body the version presented, and the
 * version's name (records an earlier release wrote hold v2.1's body without one).
 */
export interface StoredAnswer {
  readonly version: string;
  readonly body: unknown;
}

/** The answer to keep for a repeat: `present(...)` as this version wrote it. */
export function storedAnswer<K extends Operation>(
  request: FastifyRequest,
  operation: K,
  result: Results[K],
): StoredAnswer {
  const { versionName = '', presenters } = request.routeOptions.config;
  if (presenters === undefined) throw new Error(`${request.url} is not served by an API version`);
  const presenter: Presenter<Results[K]> = presenters[operation];
  return { version: versionName, body: presenter.present(result) };
}

function isStoredAnswer(value: unknown): value is StoredAnswer {
  return typeof value === 'object' && value !== null && 'version' in value && 'body' in value;
}

/**
 * A stored answer, sent again as first sent: the route's serializer writes the same body into
 * the same bytes. A record an earlier release wrote holds v2.1's body: on v2.1 it is sent as
 * it is; on a later version it is read back into a result (`fromV21`) and presented.
 */
export function presentAgain<K extends Operation>(
  request: FastifyRequest,
  operation: K,
  stored: unknown,
  fromV21: (body: never) => Results[K],
): Presented {
  if (isStoredAnswer(stored)) return stored.body as Presented;
  if (request.routeOptions.config.versionName === '2.1') return stored as Presented;
  return present(request, operation, fromV21(stored as never));
}
