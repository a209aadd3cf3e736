import { hash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DomainError } from '../domain/errors/error-codes.js';
import { badRequest } from '../domain/errors/error-codes.js';
import type { IdempotencyRequest } from '../domain/runner/idempotency.js';
import type { Outcome } from '../domain/runner/use-case-runner.js';
import { sendError } from './error-handler.js';
import { ErrorRef } from './schemas/common.js';
import type { Presented } from './versions/presenter.js';
import { refusalMessage } from './versions/presenter.js';

// `Idempotency-Key` on POST, as HTTP sees it: the header's schema and parsing, the hash of the
// request, and the reply of an outcome. Claiming, storing and replaying are the use-case
// runner's (src/domain/runner/use-case-runner.ts and idempotency.ts):
//
//   app.post('/things', { schema }, async (request, reply) =>
//     replyWith(reply, await runUseCase(deps, createThing, input, {
//       idempotency: idempotencyOf(request),
//       present: thingBody,
//     })),
//   );

export const REPLAY_HEADER = 'idempotent-replayed';

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The header schema of a POST route that accepts Idempotency-Key (documents it in OpenAPI). */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7e]+$',
      description:
        'Optional. A unique key (e.g. a UUID) that makes the request safe to retry: the first ' +
        'response is stored for 24 hours and replayed, with `Idempotent-Replayed: true`, for a ' +
        'repeat with the same key and request. The same key with a different request, or while ' +
        'the first request is still running, is a 409.',
    }),
  ),
});

/** The 409 response of a route that accepts Idempotency-Key. */
export const idempotencyConflict = {
  ...ErrorRef,
  description:
    'Idempotency-Key reused with a different request (code idempotency_key_reused), or the first ' +
    'request with this key is still running (code idempotency_in_progress; retry later).',
};

/** JSON with object keys sorted at every level, so equal requests hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i += 1) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${out}]`;
  }
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    let out = '{';
    for (const key of keys) {
      const field = record[key];
      if (field === undefined) continue;
      out += `${out.length === 1 ? '' : ','}${JSON.stringify(key)}:${canonicalJson(field)}`;
    }
    return `${out}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** SHA-256 of method, path, query and canonical body (one string, hashed in one call). */
export function requestHash(request: FastifyRequest): string {
  const path = request.url.split('?')[0] ?? '';
  const text = `${request.method}\n${path}\n${canonicalJson(request.query ?? {})}\n${canonicalJson(request.body ?? null)}`;
  return hash('sha256', text, 'hex');
}

/** The Idempotency-Key header, or undefined when the request carries none (400 when malformed). */
export function presentedKey(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw badRequest('send at most one Idempotency-Key header');
  if (!KEY_PATTERN.test(raw)) {
    throw badRequest(
      'header Idempotency-Key must be 1 to 255 visible ASCII characters',
      'validation_failed',
    );
  }
  return raw;
}

/** What the use-case runner needs of the request's Idempotency-Key, if it carries one. */
export function idempotencyOf(
  request: FastifyRequest,
  options: { leaseSeconds?: number } = {},
): IdempotencyRequest | undefined {
  const key = presentedKey(request);
  if (key === undefined) return undefined;
  return {
    organisationId: request.organisation.id,
    key,
    requestHash: requestHash(request),
    ...(options.leaseSeconds === undefined ? {} : { leaseSeconds: options.leaseSeconds }),
    log: request.log,
  };
}

/**
 * The reply of an outcome: the answer of a use case that ran, or a stored one replayed with
 * `Idempotent-Replayed: true`: the answer as first serialised, a refusal rendered again from its
 * code (its status comes from the catalogue), and a record an earlier release stored in another
 * form with the status and bytes it was stored with.
 */
export function replyWith<B>(reply: FastifyReply, outcome: Outcome<B>): B | FastifyReply {
  if (outcome.kind === 'done') return outcome.body;
  reply.header(REPLAY_HEADER, 'true');
  const json = 'application/json; charset=utf-8';
  switch (outcome.kind) {
    case 'replayed':
      // The status is the route's, as for a first answer.
      return reply.type(json).send(JSON.stringify(outcome.body));
    case 'refused':
      return sendRefusal(reply, outcome.error);
    case 'stored':
      return reply.code(outcome.status).type(json).send(outcome.text);
  }
}

/** A refusal replayed, in the words (and the money) of the version serving the request. */
function sendRefusal(reply: FastifyReply, error: DomainError): FastifyReply {
  return sendError(reply, { code: error.code, message: refusalMessage(reply.request, error) });
}

/**
 * The reply of an outcome whose body the version serving the request presents: the use case's
 * body, whether it ran now or earlier (`Idempotent-Replayed: true`), goes through `answer` and
 * the route's serializer, so a repeat is sent the bytes the first request was.
 */
export function replyPresented<B>(
  reply: FastifyReply,
  outcome: Outcome<B>,
  answer: (body: B) => Presented,
): Presented | FastifyReply {
  switch (outcome.kind) {
    case 'done':
      return answer(outcome.body);
    case 'replayed':
      reply.header(REPLAY_HEADER, 'true');
      return answer(outcome.body);
    case 'refused':
      reply.header(REPLAY_HEADER, 'true');
      return sendRefusal(reply, outcome.error);
    case 'stored':
      reply.header(REPLAY_HEADER, 'true');
      return reply.code(outcome.status).type('application/json; charset=utf-8').send(outcome.text);
  }
}
