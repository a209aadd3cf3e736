import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../deps.js';
import { addSeconds, iso } from '../clock.js';
import { DomainError, badRequest, conflict, isFixedStatusCode } from '../domain/errors.js';
import type { Executor } from '../store/database.js';
import {
  completeClaim,
  completeClaimWithError,
  findIdempotencyRecord,
  storedError,
  insertClaim,
  releaseClaim,
  takeOverClaim,
  transferClaim,
} from '../store/repositories/idempotency-repository.js';
import { sendError } from './error-handler.js';
import { ErrorRef } from './schemas/common.js';

/**
 * `Idempotency-Key` for POST routes. Wrap the handler body in withIdempotency and write the
 * response inside the route's own transaction with idem.complete, so the record and the route's
 * writes commit (or roll back) together:
 *
 *   app.post('/things', { schema }, (request, reply) =>
 *     withIdempotency(deps, request, reply, (idem) =>
 *       deps.store.db.transaction().execute(async (trx) => {
 *         const result = await createThing(trx, ...);
 *         await idem.complete(trx, 200, result);
 *         return result;
 *       }),
 *     ),
 *   );
 *
 * - No header: `run` is called with a handle whose methods do nothing.
 * - First use of a key: the key is claimed (a `running` record keyed by organisation and key,
 *   holding a SHA-256 of method, path, query and canonical body), then `run` is called.
 * - Same key, same request, finished: the stored status and body are replayed, with the header
 *   `Idempotent-Replayed: true`. Records are kept for 24 hours; an expired one may be reused.
 * - Same key, different request: 409 `idempotency_key_reused`.
 *   Same key while the first request is still running: 409 `idempotency_in_progress`.
 * - `run` returns without calling complete (a route with no transaction): the result is stored
 *   afterwards. `run` throws a 4xx DomainError: its code and message are stored, and a replay
 *   renders them again (the status follows from the code).
 *   `run` throws anything else (5xx, unexpected): the claim is released so the client can retry.
 * - idem.handOver gives the claim to a process that completes it later (a payment whose outcome
 *   is not known yet); the claim is then neither stored nor released here.
 */
export interface Idempotency {
  /** The key presented, or undefined when the request carries none. */
  readonly key: string | undefined;
  /** Stores the response in the caller's transaction; throws 409 if the claim was lost meanwhile. */
  complete(trx: Executor, status: number, body: unknown): Promise<void>;
  /** Passes the running claim to `owner`, who must complete or release it within leaseSeconds. */
  handOver(owner: string, leaseSeconds: number): Promise<void>;
}

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** How long a claim may run before another request may take it over (its holder died). */
export const DEFAULT_LEASE_SECONDS = 120;
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

const noop: Idempotency = {
  key: undefined,
  complete: async () => undefined,
  handOver: async () => undefined,
};

/** JSON with object keys sorted at every level, so equal requests hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestHash(request: FastifyRequest): string {
  const path = request.url.split('?')[0] ?? '';
  return createHash('sha256')
    .update(`${request.method}\n${path}\n`)
    .update(canonicalJson(request.query ?? {}))
    .update('\n')
    .update(canonicalJson(request.body ?? null))
    .digest('hex');
}

function presentedKey(request: FastifyRequest): string | undefined {
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

/**
 * Replays a stored response. A stored error is rendered again from its code (its status comes
 * from the catalogue); anything else, and a record whose body is not a catalogue error, is sent
 * back with the status and bytes stored.
 */
function replay(reply: FastifyReply, status: number, body: string): FastifyReply {
  reply.header(REPLAY_HEADER, 'true');
  const error = status >= 400 ? storedError(body) : undefined;
  if (error !== undefined && isFixedStatusCode(error.code)) {
    return sendError(reply, { code: error.code, message: error.message });
  }
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

export async function withIdempotency<T>(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  run: (idem: Idempotency) => Promise<T>,
  options: { leaseSeconds?: number } = {},
): Promise<T | FastifyReply> {
  const key = presentedKey(request);
  if (key === undefined) return run(noop);
  const db = deps.store.db;
  const organisationId = request.organisation.id;
  const now = deps.clock.now();
  // The replay window follows the service clock (the simulator may advance it); a claim's lease
  // is an operational timeout on the wall clock, so advancing the simulator clock never lets a
  // second request take over one that is still running.
  const leaseNow = deps.wallClock.now();
  const claim = {
    organisationId,
    key,
    requestHash: requestHash(request),
    owner: deps.random.uuid(),
    at: iso(now),
    expiresAt: iso(addSeconds(now, IDEMPOTENCY_TTL_SECONDS)),
    leaseNow: iso(leaseNow),
    lockedUntil: iso(addSeconds(leaseNow, options.leaseSeconds ?? DEFAULT_LEASE_SECONDS)),
  };

  if (!(await insertClaim(db, claim)) && !(await takeOverClaim(db, claim))) {
    const existing = await findIdempotencyRecord(db, organisationId, key);
    if (existing === undefined) {
      // Released or purged between our two statements: the client may simply retry.
      throw new DomainError(
        'idempotency_in_progress',
        `a request with Idempotency-Key "${key}" just finished; retry`,
        1,
      );
    }
    if (existing.requestHash !== claim.requestHash) {
      throw conflict(
        `Idempotency-Key "${key}" was already used with a different request`,
        'idempotency_key_reused',
      );
    }
    if (existing.state === 'running' || existing.responseStatus === null) {
      throw new DomainError(
        'idempotency_in_progress',
        `a request with Idempotency-Key "${key}" is still being processed; retry later`,
        1,
      );
    }
    return replay(reply, existing.responseStatus, existing.responseBody ?? '{}');
  }

  let owner = claim.owner;
  let completed = false;
  let handedOver = false;
  const handle: Idempotency = {
    key,
    async complete(trx, status, body) {
      if (!(await completeClaim(trx, organisationId, key, owner, status, JSON.stringify(body)))) {
        throw conflict(
          `Idempotency-Key "${key}" was taken over by another request`,
          'idempotency_in_progress',
        );
      }
      completed = true;
    },
    async handOver(newOwner, leaseSeconds) {
      const until = iso(addSeconds(deps.wallClock.now(), leaseSeconds));
      if (await transferClaim(db, organisationId, key, owner, newOwner, until)) {
        owner = newOwner;
        handedOver = true;
      }
    },
  };

  try {
    const result = await run(handle);
    if (!completed && !handedOver) {
      await completeClaim(db, organisationId, key, owner, reply.statusCode, JSON.stringify(result));
    }
    return result;
  } catch (error) {
    if (!completed && !handedOver) {
      if (error instanceof DomainError && error.status < 500) {
        await completeClaimWithError(db, organisationId, key, owner, error);
      } else {
        await releaseClaim(db, organisationId, key, owner);
      }
    }
    throw error;
  }
}
