import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.js';
import { readOverview } from '../../domain/organisations/overview.js';
import { requirePermission } from '../context.js';
import { sendPage } from '../layout.js';
import { overviewBody } from './overview-view.js';

// The first page after sign-in: money, data used in the last 30 days, recent orders, eSIMs by state and
// failing callbacks. Every role may read it.

export function registerOverviewPage(app: FastifyInstance, deps: AppDeps): void {
  app.get('/portal', async (request, reply) => {
    const view = requirePermission(request, 'read');
    const timeZone = view.user.timeZone;
    const overview = await readOverview(deps.store.db, view.organisation.id, deps.clock.now());
    const body = overviewBody(overview, { currency: view.organisation.currency, timeZone });
    return sendPage(reply, view, { title: 'Overview', current: 'overview', body });
  });
}
