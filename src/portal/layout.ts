import type { FastifyReply } from 'fastify';
import type { SafeHtml } from './html.js';
import { html } from './html.js';
import type { PortalView } from './context.js';
import type { Permission } from './permissions.js';
import { can } from './permissions.js';
import { formatDateTime } from './format.js';

// The page frame: a skip link, the organisation and user, the navigation (only the pages the
// role may open), the sign-out form, the flash message and the page's own body.

export type NavKey =
  | 'overview'
  | 'billing'
  | 'api'
  | 'users'
  | 'catalogue'
  | 'orders'
  | 'esims'
  | 'inventory'
  | 'activity'
  /** The simulator console (simulator mode only, linked after the navigation). */
  | 'simulator'
  /** The signed-in user's own account (linked from the header, not the navigation). */
  | 'account';

export const NAV: readonly { key: NavKey; label: string; href: string; permission: Permission }[] =
  [
    { key: 'overview', label: 'Overview', href: '/portal', permission: 'read' },
    { key: 'catalogue', label: 'Catalogue', href: '/portal/catalogue', permission: 'read' },
    { key: 'orders', label: 'Orders', href: '/portal/orders', permission: 'read' },
    { key: 'esims', label: 'eSIMs', href: '/portal/esims', permission: 'read' },
    { key: 'inventory', label: 'Inventory', href: '/portal/inventory', permission: 'read' },
    { key: 'billing', label: 'Billing', href: '/portal/billing', permission: 'read' },
    { key: 'api', label: 'API & callbacks', href: '/portal/api', permission: 'read' },
    { key: 'users', label: 'Users', href: '/portal/users', permission: 'read' },
    { key: 'activity', label: 'Activity', href: '/portal/activity', permission: 'activity.read' },
  ];

export interface PageOptions {
  readonly title: string;
  readonly current: NavKey;
  readonly body: SafeHtml;
  /** The HTTP status sendPage answers with (200 when unset). */
  readonly status?: number;
}

function document(title: string, content: SafeHtml): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · eSIM portal</title>
        <link rel="stylesheet" href="/portal/static/portal.css" />
        <link rel="icon" href="/portal/static/favicon.svg" type="image/svg+xml" />
        <script src="/portal/static/portal.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        ${content}
      </body>
    </html> `.value;
}

function nav(view: PortalView, current: NavKey): SafeHtml {
  const items = NAV.filter((item) => can(view.user.role, item.permission)).map(
    (item) =>
      html`<li>
        <a href="${item.href}" ${item.key === current ? html` aria-current="page"` : ''}
          >${item.label}</a
        >
      </li>`,
  );
  if (view.simulator !== undefined) {
    items.push(
      html`<li>
        <a href="/portal/simulator" ${current === 'simulator' ? html` aria-current="page"` : ''}
          >Simulator</a
        >
      </li>`,
    );
  }
  return html`<button
      type="button"
      class="menu-button"
      aria-expanded="false"
      aria-controls="portal-nav"
      hidden
    >
      Menu
    </button>
    <nav aria-label="Portal" id="portal-nav">
      <ul>
        ${items}
      </ul>
    </nav>`;
}

function header(view: PortalView, current: NavKey): SafeHtml {
  const user = view.user;
  return html`<header class="top">
    <div class="brand">
      <span class="org">${view.organisation.name}</span>
      <span class="who">${user.firstName} ${user.lastName} · ${user.role}</span>
      <a
        class="account"
        href="/portal/account"
        ${current === 'account' ? html` aria-current="page"` : ''}
        >Your account</a
      >
    </div>
    <form method="post" action="/portal/sign-out" class="sign-out">
      <input type="hidden" name="_csrf" value="${view.csrfToken}" />
      <button type="submit">Sign out</button>
    </form>
    ${nav(view, current)}
  </header>`;
}

/** '8 days, 2 hours ahead of real time'; 'in step with real time' at no offset. */
export function offsetText(seconds: number): string {
  if (seconds < 60) return 'in step with real time';
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  const parts = [
    days > 0 ? plural(days, 'day') : '',
    hours > 0 ? plural(hours, 'hour') : '',
    days === 0 && minutes > 0 ? plural(minutes, 'minute') : '',
  ].filter((p) => p !== '');
  return `${parts.join(', ')} ahead of real time`;
}

/** Simulator mode: the simulated time and how far it is ahead, on every signed-in page. */
function simulatorBanner(view: PortalView): SafeHtml {
  const clock = view.simulator;
  if (clock === undefined) return html``;
  return html`<p class="sim-banner" data-testid="sim-banner">
    <strong>Simulator</strong> · simulated time
    <time datetime="${clock.now}" data-testid="sim-time"
      >${formatDateTime(clock.now, view.user.timeZone)}</time
    >, <span data-testid="sim-offset">${offsetText(clock.offsetSeconds)}</span> ·
    <a href="/portal/simulator">Console</a>
  </p>`;
}

/** A full HTML document for a signed-in page. */
export function renderPage(view: PortalView, options: PageOptions): string {
  const flash =
    view.flash === undefined ? '' : html`<p class="flash" role="status">${view.flash}</p>`;
  return document(
    options.title,
    html`${simulatorBanner(view)}${header(view, options.current)}
      <main id="main">
        ${flash}
        <h1>${options.title}</h1>
        ${options.body}
      </main>`,
  );
}

/** A page for someone not signed in (sign-in, set password, errors before sign-in). */
export function renderPublicPage(title: string, body: SafeHtml): string {
  return document(
    title,
    html`<main id="main" class="public">
      <p class="brand-public">eSIM portal</p>
      <h1>${title}</h1>
      ${body}
    </main>`,
  );
}

/** Sends a signed-in page with options.status (200 by default). */
export function sendPage(
  reply: FastifyReply,
  view: PortalView,
  options: PageOptions,
): FastifyReply {
  return reply
    .code(options.status ?? 200)
    .type('text/html; charset=utf-8')
    .send(renderPage(view, options));
}
