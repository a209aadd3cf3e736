import type { FastifyInstance } from 'fastify';
import Negotiator from 'negotiator';
import type { AppDeps } from '../../deps.js';
import { escapeHtml } from '../../portal/html.js';
import { servedDocumentPaths } from '../openapi.js';

// GET /: where a person (or a script) who opened the service's address goes next. A browser gets
// a small page, anything else JSON, both listing the documentation, each OpenAPI document the
// app serves, the portal, the health checks and, in simulator mode, the control plane.

interface Link {
  readonly rel: string;
  readonly href: string;
  readonly title: string;
}

function linksOf(app: FastifyInstance, deps: AppDeps): Link[] {
  const links: Link[] = [
    { rel: 'docs', href: '/docs', title: 'Interactive API documentation ("Try it out")' },
  ];
  for (const path of servedDocumentPaths(app)) {
    const version = /^\/(v[^/]+)\//.exec(path)?.[1] ?? path;
    links.push({ rel: 'openapi', href: path, title: `OpenAPI document, ${version}` });
  }
  links.push(
    { rel: 'portal', href: '/portal', title: 'Organisation portal' },
    { rel: 'healthz', href: '/healthz', title: 'Liveness check' },
    { rel: 'readyz', href: '/readyz', title: 'Readiness check' },
  );
  if (deps.config.mode === 'simulator') {
    links.push({ rel: 'simulator', href: '/_sim/clock', title: 'Simulator control plane: clock' });
  }
  return links;
}

function page(links: readonly Link[], mode: string): string {
  const items = links
    .map(
      (l) =>
        `<li><a href="${escapeHtml(l.href)}">${escapeHtml(l.title)}</a> <code>${escapeHtml(l.href)}</code></li>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>eSIM bundle service</title>
<link rel="icon" href="/portal/static/favicon.svg" type="image/svg+xml">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}code{color:#555;font-size:.875em}li{margin:.25rem 0}</style>
</head>
<body>
<main>
<h1>eSIM bundle service</h1>
<p>Running in ${escapeHtml(mode)} mode. Send the organisation API key in the <code>X-API-Key</code> header.</p>
<ul>
${items}
</ul>
</main>
</body>
</html>
`;
}

export function homeRoute(app: FastifyInstance, deps: AppDeps): void {
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    const links = linksOf(app, deps);
    const accept = request.headers.accept ?? '';
    const type = new Negotiator({ headers: { accept } }).mediaType([
      'application/json',
      'text/html',
    ]);
    if (type === 'text/html') {
      return reply.type('text/html; charset=utf-8').send(page(links, deps.config.mode));
    }
    return reply.type('application/json; charset=utf-8').send({
      name: 'eSIM bundle service',
      mode: deps.config.mode,
      links,
    });
  });
}
