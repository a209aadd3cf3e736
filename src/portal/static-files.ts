import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

// The portal's stylesheet, script and icon, served from memory with a short cache. They live in
// src/portal/static/; the compiled bundle (dist/esim.js) finds them there from the repository
// root, so `npm start` needs no build step for them.

const FILES = {
  'portal.css': 'text/css; charset=utf-8',
  'portal.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
} as const;

function staticDirectory(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i += 1) {
    for (const candidate of [join(dir, 'static'), join(dir, 'src', 'portal', 'static')]) {
      if (existsSync(join(candidate, 'portal.css'))) return candidate;
    }
    dir = dirname(dir);
  }
  throw new Error('the portal static files (src/portal/static) are missing');
}

export function registerStaticFiles(app: FastifyInstance): void {
  const dir = staticDirectory();
  for (const [name, type] of Object.entries(FILES)) {
    const body = readFileSync(join(dir, name));
    app.get(`/portal/static/${name}`, { config: { portalPublic: true } }, async (_request, reply) =>
      reply.type(type).header('cache-control', 'public, max-age=300').send(body),
    );
  }
}
