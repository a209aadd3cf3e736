import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditActor } from '../domain/audit/audit-log.js';
import { userActor } from '../domain/audit/audit-log.js';
import { DomainError } from '../domain/errors/error-codes.js';
import type { Organisation } from '../domain/organisations/organisation.js';
import type { PortalUser } from '../domain/access/portal-user.js';
import { FLASH_COOKIE, setCookie } from './cookies.js';
import type { Permission } from './permissions.js';
import { can } from './permissions.js';
import type { SimulatedClock } from '../domain/simulator/console.js';

// What a portal page knows about who is looking: set by the session hook of plugin.ts on every
// signed-in request.

export type { PortalUser } from '../domain/access/portal-user.js';

export interface PortalView {
  readonly user: PortalUser;
  readonly organisation: Organisation;
  readonly csrfToken: string;
  /** The message of the action just done (post/redirect/get), shown once. */
  readonly flash?: string;
  /** Simulator mode: the simulated clock, shown in a banner on every page. */
  readonly simulator?: SimulatedClock;
}

export interface PortalRequestState {
  view?: PortalView;
  /** The session cookie's value, for sign-out. */
  sessionToken?: string;
  /** The CSRF token of a form shown before sign-in. */
  preSessionCsrf?: string;
  /** The flash message, also before sign-in. */
  flash?: string;
  secureCookie: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    portal?: PortalRequestState;
  }
}

/** The signed-in view; throws when the request has no session (the hook redirects first). */
export function portalView(request: FastifyRequest): PortalView {
  const view = request.portal?.view;
  if (view === undefined) throw new DomainError('unauthorized', 'sign in to use the portal');
  return view;
}

/** Refuses with 403 (an HTML page in the portal) unless the user's role has the permission. */
export function requirePermission(request: FastifyRequest, permission: Permission): PortalView {
  const view = portalView(request);
  if (!can(view.user.role, permission)) {
    throw new DomainError(
      'forbidden',
      `your role (${view.user.role}) does not allow this; ask an Admin of your organisation`,
    );
  }
  return view;
}

/** Who is acting, for the audit log: the user and the client address. */
export function auditActor(request: FastifyRequest): AuditActor {
  return userActor(portalView(request).user, request.ip);
}

/** Post/redirect/get: a 303 to `location` with a message the next page shows once. */
export function redirectWithFlash(
  request: FastifyRequest,
  reply: FastifyReply,
  location: string,
  message: string,
): FastifyReply {
  setCookie(reply, FLASH_COOKIE, message, {
    secure: request.portal?.secureCookie ?? true,
    maxAge: 60,
  });
  return reply.code(303).header('location', location).send();
}
