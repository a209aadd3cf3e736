import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.js';
import { requirePermission } from '../context.js';
import { html } from '../html.js';
import { sendPage } from '../layout.js';

// Placeholder until the page is built: the route exists, so the navigation and the role checks
// work from the start.

export function registerInventoryPage(app: FastifyInstance, _deps: AppDeps): void {
  app.get('/portal/inventory', async (request, reply) => {
    const view = requirePermission(request, 'read');
    const body = html`<p>This page is not available yet.</p>`;
    return sendPage(reply, view, { title: 'Inventory', current: 'inventory', body });
  });
}
