import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { buildApp } from '../../src/app.js';
import type { WallClock } from '../../src/clock.js';
import { OffsetClock } from '../../src/clock.js';
import type { Config } from '../../src/config.js';
import { testConfig } from '../../src/config.js';
import type { AppDeps } from '../../src/deps.js';
import { systemActor } from '../../src/domain/audit/audit-log.js';
import { openAccount } from '../../src/domain/money/ledger.js';
import {
  addUser,
  createOrganisation,
} from '../../src/domain/organisations/organisation-changes.js';
import { setPassword } from '../../src/domain/access/set-password-links.js';
import type { PortalUser, Role } from '../../src/domain/access/portal-user.js';
import { PORTAL_ROLES } from '../../src/domain/access/portal-user.js';
import type { Services } from '../../src/main.js';
import { openServices } from '../../src/main.js';
import type { DatabaseKind, TestDatabase } from '../databases.js';
import { baseUrlOf } from './base-urls.js';
import { freshDatabase, sqliteImage } from '../databases.js';

// A real portal server on port 0 over SQLite (a file, so a restart keeps it) or PostgreSQL,
// with two organisations: the main one, with one user per role, and another one with an Admin,
// whose ids the security tests try from the main one. Every seeded user's password is
// PORTAL_PASSWORD.

export { DATABASES } from '../databases.js';
export const PORTAL_PASSWORD = 'portal password 1234';
export const ROLES: readonly Role[] = PORTAL_ROLES;
export type OrgName = 'main' | 'other';

export function emailFor(role: Role, org: OrgName = 'main'): string {
  return `${role.toLowerCase()}@${org}.portal.test`;
}

export interface PortalServer {
  readonly kind: DatabaseKind;
  /** http://127.0.0.1:<port>, the same across restart(). */
  readonly baseUrl: string;
  /** The running server's dependencies (new ones after restart()). */
  readonly deps: AppDeps;
  readonly app: FastifyInstance;
  readonly clock: OffsetClock;
  readonly organisationId: string;
  readonly organisationApiKey: string;
  readonly otherOrganisationId: string;
  readonly otherOrganisationApiKey: string;
  /** The main organisation's users by role, and the other organisation's Admin. */
  readonly users: Readonly<Record<Role, PortalUser>>;
  readonly otherAdmin: PortalUser;
  /** Stops the server and starts a new one on the same database and port. */
  restart(): Promise<void>;
  /** Another instance on the same database (PostgreSQL: several instances share one). */
  secondInstance(): Promise<{ baseUrl: string; close(): Promise<void> }>;
  close(): Promise<void>;
}

export interface PortalOptions {
  readonly config?: Partial<Config>;
  readonly wallClock?: WallClock;
  /** Where the server's log goes (JSON lines, from `info`); silent without it. */
  readonly logStream?: { write(line: string): void };
}

async function seedOrg(deps: AppDeps, name: string, roles: readonly Role[], org: OrgName) {
  const orgDeps = {
    db: deps.store.db,
    clock: deps.clock,
    random: deps.random,
    cipher: deps.cipher,
  };
  const created = await createOrganisation(orgDeps, { name }, (trx, o) =>
    openAccount(trx, { organisationId: o.id, balance: 100_000, at: deps.clock.now() }),
  );
  const users: Partial<Record<Role, PortalUser>> = {};
  for (const role of roles) {
    const user = await addUser(orgDeps, created.id, {
      email: emailFor(role, org),
      firstName: role,
      lastName: name.split(' ')[0] ?? name,
      role,
      timeZone: 'Europe/London',
    });
    await setPassword(deps, systemActor, user, PORTAL_PASSWORD);
    users[role] = user;
  }
  return { id: created.id, apiKey: created.apiKey, users };
}

// The database starts as a copy of the process's migrated and seeded template (test/databases.ts);
// SQLite's is written to a file, so that a restart finds it.
async function sqliteTarget(): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'esim-portal-'));
  const path = join(dir, 'portal.db');
  writeFileSync(path, await sqliteImage('seeded'));
  return {
    target: { kind: 'sqlite', path },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

export async function startPortal(
  kind: DatabaseKind,
  options: PortalOptions = {},
): Promise<PortalServer> {
  const database = kind === 'sqlite' ? await sqliteTarget() : await freshDatabase(kind, 'seeded');
  const config = testConfig({ database: database.target, catalogueSeed: true, ...options.config });
  const clock = new OffsetClock();
  const open = async (port: number) => {
    const services: Services = await openServices(config, {
      clock,
      ...(options.wallClock === undefined ? {} : { wallClock: options.wallClock }),
    });
    const app = await buildApp(
      services.deps,
      options.logStream === undefined
        ? { logLevel: 'silent' }
        : { logLevel: 'info', logStream: options.logStream },
    );
    await app.listen({ port, host: '127.0.0.1' });
    const address = app.server.address();
    const actual = typeof address === 'object' && address !== null ? address.port : port;
    return { services, app, port: actual };
  };
  let running = await open(0);
  const main = await seedOrg(running.services.deps, 'Portal Organisation', ROLES, 'main');
  const other = await seedOrg(running.services.deps, 'Other Organisation', ['Admin'], 'other');
  const stop = async () => {
    await running.app.close();
    await running.services.close();
  };
  const server: PortalServer = {
    kind,
    baseUrl: `http://127.0.0.1:${running.port}`,
    get deps() {
      return running.services.deps;
    },
    get app() {
      return running.app;
    },
    clock,
    organisationId: main.id,
    organisationApiKey: main.apiKey,
    otherOrganisationId: other.id,
    otherOrganisationApiKey: other.apiKey,
    users: main.users as Record<Role, PortalUser>,
    otherAdmin: other.users.Admin as PortalUser,
    async secondInstance() {
      const second = await open(0);
      return {
        baseUrl: `http://127.0.0.1:${second.port}`,
        async close() {
          await second.app.close();
          await second.services.close();
        },
      };
    },
    async restart() {
      const port = running.port;
      await stop();
      running = await open(port);
    },
    async close() {
      await stop();
      await database.drop();
    },
  };
  return server;
}

/** Signs in through the sign-in form, as a person would; the page ends on the Overview. */
export async function signInWithForm(page: Page, role: Role, org: OrgName = 'main'): Promise<void> {
  await page.goto('/portal');
  await page.getByLabel('Email').fill(emailFor(role, org));
  await page.getByLabel('Password').fill(PORTAL_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname === '/portal');
}

/**
 * Signs the page's context in through the portal's sign-in (the form posted over HTTP, the
 * session cookie handed to the browser); the page ends on `to`, the Overview unless told (a test
 * that starts elsewhere loads only that page). For tests whose subject is not the sign-in form
 * itself (those use signInWithForm).
 */
export async function signIn(
  page: Page,
  role: Role,
  { org = 'main', to = '/portal' }: { org?: OrgName; to?: string } = {},
): Promise<void> {
  const context = page.context();
  const baseUrl = baseUrlOf(context);
  const session = await sessionCookie(baseUrl, role, org);
  await context.addCookies([
    {
      name: SESSION_COOKIE,
      value: session,
      url: `${baseUrl}/portal`,
      httpOnly: true,
      sameSite: 'Lax',
    },
  ]);
  await page.goto(to);
  if (new URL(page.url()).pathname !== new URL(to, baseUrl).pathname) {
    throw new Error(`signed in as ${role}, the browser ended on ${page.url()}`);
  }
}

/** A signed-in session over raw HTTP: its cookie header and CSRF token. */
export interface HttpSession {
  readonly baseUrl: string;
  readonly cookie: string;
  readonly csrf: string;
  get(path: string): Promise<Response>;
  /** POSTs a form; the session's CSRF token is added unless `csrf` says otherwise. */
  post(
    path: string,
    fields?: Record<string, string>,
    options?: { csrf?: string | false },
  ): Promise<Response>;
}

export function cookiesOf(response: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const eq = pair?.indexOf('=') ?? -1;
    if (pair !== undefined && eq > 0) out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

export function csrfIn(page: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(page);
  if (match?.[1] === undefined) throw new Error('no CSRF field in the page');
  return match[1];
}

export function httpSession(baseUrl: string, cookie: string, csrf: string): HttpSession {
  return {
    baseUrl,
    cookie,
    csrf,
    get: (path) => fetch(baseUrl + path, { headers: { cookie }, redirect: 'manual' }),
    post: (path, fields = {}, options = {}) => {
      const form = new URLSearchParams(fields);
      const token = options.csrf === undefined ? csrf : options.csrf;
      if (token !== false) form.set('_csrf', token);
      return fetch(baseUrl + path, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
        redirect: 'manual',
      });
    },
  };
}

const SESSION_COOKIE = 'esim_session';

/** Posts the sign-in form over HTTP; the new session cookie's value. */
async function sessionCookie(
  baseUrl: string,
  role: Role,
  org: OrgName,
  password = PORTAL_PASSWORD,
): Promise<string> {
  const form = await fetch(`${baseUrl}/portal/sign-in`, { redirect: 'manual' });
  const preCookie = Object.entries(cookiesOf(form))
    .map(([k, v]) => `${k}=${v}`)
    .join('; ');
  const body = new URLSearchParams({
    _csrf: csrfIn(await form.text()),
    email: emailFor(role, org),
    password,
  });
  const signedIn = await fetch(`${baseUrl}/portal/sign-in`, {
    method: 'POST',
    headers: { cookie: preCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: body.toString(),
    redirect: 'manual',
  });
  const session = cookiesOf(signedIn)[SESSION_COOKIE];
  if (signedIn.status !== 303 || session === undefined || session === '') {
    throw new Error(`sign-in as ${role} failed with ${signedIn.status}`);
  }
  return session;
}

/** Signs in over raw HTTP with the seeded password (or the given one). */
export async function signInHttp(
  baseUrl: string,
  role: Role,
  org: OrgName = 'main',
  password = PORTAL_PASSWORD,
): Promise<HttpSession> {
  const cookie = `${SESSION_COOKIE}=${await sessionCookie(baseUrl, role, org, password)}`;
  const overview = await fetch(`${baseUrl}/portal`, { headers: { cookie }, redirect: 'manual' });
  return httpSession(baseUrl, cookie, csrfIn(await overview.text()));
}
