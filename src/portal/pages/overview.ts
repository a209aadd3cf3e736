import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.js';
import { requirePermission } from '../context.js';
import { formatDateTime, formatMoney } from '../format.js';
import { html } from '../html.js';
import { sendPage } from '../layout.js';

// The first page after sign-in. A short version: the balance and the test credit.

export function registerOverviewPage(app: FastifyInstance, _deps: AppDeps): void {
  app.get('/portal', async (request, reply) => {
    const view = requirePermission(request, 'read');
    const org = view.organisation;
    const expiry =
      org.testCreditExpiry === null
        ? ''
        : html` (expires ${formatDateTime(org.testCreditExpiry, view.user.timeZone)})`;
    const body = html`<dl class="figures">
      <div>
        <dt>Balance</dt>
        <dd>${formatMoney(org.balance, org.currency)}</dd>
      </div>
      <div>
        <dt>Test credit</dt>
        <dd>${formatMoney(org.testCredit, org.currency)}${expiry}</dd>
      </div>
    </dl>`;
    return sendPage(reply, view, { title: 'Overview', current: 'overview', body });
  });
}
