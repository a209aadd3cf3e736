import { Type } from '@sinclair/typebox';
import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../../deps.js';
import { DomainError } from '../../../domain/errors/error-codes.js';
import type { Simulator } from '../../../domain/simulator/simulator.js';
import { sendError } from '../../error-handler.js';
import { ErrorRef } from '../../schemas/common.js';

// Shared parts of the /_sim control plane: its OpenAPI marks, error responses and the bearer check.

export const simMarks = { tags: ['Simulator'], 'x-simulator': true } as const;

export const simErrors = {
  400: { ...ErrorRef, description: 'Bad request: the message names the offending field.' },
  401: { ...ErrorRef, description: 'SIM_ADMIN_TOKEN is set and no bearer token was sent.' },
  403: { ...ErrorRef, description: 'SIM_ADMIN_TOKEN is set and the bearer token is wrong.' },
  404: { ...ErrorRef, description: 'No such eSIM.' },
  500: { ...ErrorRef, description: 'Unexpected error; no internals are exposed.' },
} as const;

export const SimIccidParams = Type.Object({
  iccid: Type.String({
    description: 'ICCID of any eSIM (the control plane is not scoped to an organisation).',
  }),
});

/** The simulator handle; the routes are only registered in simulator mode, so it is present. */
export function simulatorOf(deps: AppDeps): Simulator {
  if (deps.simulator === undefined) {
    throw new DomainError('not_found', 'the simulator control plane exists in simulator mode only');
  }
  return deps.simulator;
}

function sameToken(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * With SIM_ADMIN_TOKEN set, every /_sim request needs `Authorization: Bearer <token>`, but those
 * of the routes in `open` (the callback receiver: deliveries send no token).
 */
export function simAuthHook(deps: AppDeps, open: (routeUrl: string | undefined) => boolean) {
  return async (
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<FastifyReply | undefined> => {
    const expected = deps.config.simAdminToken;
    if (expected === undefined || open(request.routeOptions.url)) return undefined;
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(.+)$/i.exec(header.trim()) : null;
    if (match === null || match[1] === undefined) {
      reply.header('www-authenticate', 'Bearer realm="simulator"');
      return sendError(reply, {
        code: 'unauthorized',
        message: 'the simulator control plane needs Authorization: Bearer <SIM_ADMIN_TOKEN>',
      });
    }
    if (!sameToken(match[1], expected)) {
      return sendError(reply, { code: 'forbidden', message: 'invalid simulator admin token' });
    }
    return undefined;
  };
}

/** For routes whose body is all optional: a POST without a body (curl -X POST) means {}. */
export async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

/**
 * Route options for a POST whose body is all optional: no body, or an empty one sent as JSON
 * (body-parsing.ts), is {}.
 */
export const optionalBody = {
  config: { optionalBody: true },
  preValidation: emptyBodyAsObject,
} as const;
