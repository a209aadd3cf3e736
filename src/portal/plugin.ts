import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../deps.js';
import { findOrganisationById } from '../domain/organisations/organisation-reads.js';
import { resumeSession } from '../domain/access/sessions.js';
import { sameSecret } from '../domain/access/secrets.js';
import type { PortalRequestState } from './context.js';
import {
  FLASH_COOKIE,
  PRE_SESSION_CSRF_COOKIE,
  SESSION_COOKIE,
  clearCookie,
  readCookie,
} from './cookies.js';
import { NO_SUCH_PAGE, installPortalErrors, sendErrorPage } from './error-page.js';
import { registerAccountPage } from './pages/account.js';
import { registerActivityPage } from './pages/activity.js';
import { registerApiPage } from './pages/api.js';
import { registerBillingPage } from './pages/billing.js';
import { registerCataloguePage } from './pages/catalogue.js';
import { registerEsimsPage } from './pages/esims.js';
import { registerInventoryPage } from './pages/inventory.js';
import { registerOrdersPage } from './pages/orders.js';
import { registerOverviewPage } from './pages/overview.js';
import { registerSignInPages } from './pages/sign-in.js';
import { registerUsersPage } from './pages/users.js';
import { registerStaticFiles } from './static-files.js';
import { registerSimulatorPages } from './pages/simulator.js';
import { simulatedClock } from '../domain/simulator/console.js';

// The organisation portal under /portal: server-rendered pages, forms that work without
// JavaScript. Every request gets the security headers; every page except the public ones
// (sign-in, forgot password, set password, static files) needs a live session; every request
// that is not GET or HEAD needs the CSRF token of its session (or, before sign-in, of the
// sign-in form's cookie).

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A portal route anyone may open without signing in. */
    portalPublic?: boolean;
  }
}

const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
} as const;

async function loadSession(deps: AppDeps, request: FastifyRequest, state: PortalRequestState) {
  const token = readCookie(request, SESSION_COOKIE);
  if (token === undefined || token === '') return;
  const session = await resumeSession(deps, token);
  if (session === undefined) return;
  const organisation = await findOrganisationById(deps.store.db, session.user.organisationId);
  if (organisation === undefined) return;
  state.sessionToken = token;
  const clock = simulatedClock(deps);
  state.view = {
    user: session.user,
    organisation,
    csrfToken: session.csrfToken,
    ...(clock === undefined ? {} : { simulator: clock }),
  };
}

function takeFlash(request: FastifyRequest, reply: FastifyReply, state: PortalRequestState): void {
  const flash = readCookie(request, FLASH_COOKIE);
  if (flash === undefined || flash === '' || request.method !== 'GET') return;
  clearCookie(reply, FLASH_COOKIE, state.secureCookie);
  state.flash = flash.slice(0, 500);
  if (state.view !== undefined) state.view = { ...state.view, flash: state.flash };
}

function signInLocation(request: FastifyRequest): string {
  const path = request.url;
  const next =
    path === '/portal' || !path.startsWith('/portal/') ? '' : `?next=${encodeURIComponent(path)}`;
  return `/portal/sign-in${next}`;
}

function csrfGiven(request: FastifyRequest): string | undefined {
  const body = request.body;
  if (typeof body === 'object' && body !== null && '_csrf' in body) {
    const value = (body as Record<string, unknown>)['_csrf'];
    if (typeof value === 'string') return value;
  }
  const header = request.headers['x-csrf-token'];
  return typeof header === 'string' ? header : undefined;
}

function csrfValid(request: FastifyRequest, state: PortalRequestState): boolean {
  const expected = state.view?.csrfToken ?? readCookie(request, PRE_SESSION_CSRF_COOKIE);
  const given = csrfGiven(request);
  return (
    expected !== undefined && expected !== '' && given !== undefined && sameSecret(expected, given)
  );
}

function installSessionHooks(scope: FastifyInstance, deps: AppDeps): void {
  scope.addHook('onRequest', async (request, reply) => {
    reply.headers(SECURITY_HEADERS);
    const state: PortalRequestState = { secureCookie: deps.config.portal.secureCookie };
    request.portal = state;
    if (request.url.startsWith('/portal/static/')) return;
    await loadSession(deps, request, state);
    takeFlash(request, reply, state);
    if (state.view !== undefined || request.routeOptions.config.portalPublic === true) return;
    if (request.method === 'GET' || request.method === 'HEAD') {
      return reply.code(303).header('location', signInLocation(request)).send();
    }
    return sendErrorPage(request, reply, 401, 'Your session has ended. Sign in again.');
  });
  scope.addHook('preHandler', async (request, reply) => {
    if (request.method === 'GET' || request.method === 'HEAD') return;
    const state = request.portal;
    if (state !== undefined && csrfValid(request, state)) return;
    return sendErrorPage(
      request,
      reply,
      403,
      'This form has expired or did not come from the portal. Reload the page and try again.',
    );
  });
}

/** Registers the portal: session and CSRF hooks, static files and every page. */
export async function registerPortal(app: FastifyInstance, deps: AppDeps): Promise<void> {
  await app.register(async (scope) => {
    // Pages are not part of the API: kept out of the OpenAPI document.
    scope.addHook('onRoute', (route) => {
      route.schema = { ...(route.schema ?? {}), hide: true };
    });
    await scope.register(formbody, { bodyLimit: deps.config.bodyLimitBytes });
    installSessionHooks(scope, deps);
    installPortalErrors(scope);
    registerStaticFiles(scope);
    registerSignInPages(scope, deps);
    registerOverviewPage(scope, deps);
    registerBillingPage(scope, deps);
    registerApiPage(scope, deps);
    registerUsersPage(scope, deps);
    registerCataloguePage(scope, deps);
    registerOrdersPage(scope, deps);
    registerEsimsPage(scope, deps);
    registerInventoryPage(scope, deps);
    registerActivityPage(scope, deps);
    registerAccountPage(scope, deps);
    // Simulator mode only: in production these pages do not exist (404).
    if (deps.simulator !== undefined) registerSimulatorPages(scope, deps);
  });
  await app.register(
    async (scope) => {
      // Outside the pages' scope, so its hooks did not run: the headers are set here, and its
      // error page answers what loading the session meets (a busy database: 503) and a body no
      // page parses (still 404).
      installPortalErrors(scope);
      scope.addHook('onRequest', (_request, reply, done) => {
        reply.headers(SECURITY_HEADERS);
        done();
      });
      scope.setNotFoundHandler(async (request, reply) => {
        // A signed-in user gets the signed-in page (navigation, their organisation).
        const state: PortalRequestState = { secureCookie: deps.config.portal.secureCookie };
        request.portal = state;
        await loadSession(deps, request, state);
        return sendErrorPage(request, reply, 404, NO_SUCH_PAGE);
      });
    },
    { prefix: '/portal' },
  );
}
