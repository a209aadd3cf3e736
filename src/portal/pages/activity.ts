import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.js';
import type { AuditEntry } from '../../domain/audit/audit-log.js';
import { auditTrail } from '../../domain/audit/audit-log.js';
import { requirePermission } from '../context.js';
import { formatDateTime } from '../format.js';
import type { SafeHtml } from '../html.js';
import { html } from '../html.js';
import { sendPage } from '../layout.js';
import type { DetailContext } from './activity-details.js';
import { activityActor, activityDetails } from './activity-details.js';

// Activity: the organisation's audit trail (sign-ins, failed sign-ins, users, key, card,
// callbacks, top-ups), newest first, 50 rows a page. Admins only.

const PER_PAGE = 50;

const ACTION_LABELS: Readonly<Record<string, string>> = {
  'portal.signed_in': 'Signed in',
  'portal.sign_in_failed': 'Failed sign-in',
  'portal.signed_out': 'Signed out',
  'user.added': 'User added',
  'user.removed': 'User removed',
  'user.role_changed': 'Role changed',
  'user.password_set': 'Password set',
  'api_key.revealed': 'API key revealed',
  'api_key.address_refused': 'API call refused (IP allow-list)',
  'api_key.rotated': 'API key rotated',
  'card.saved': 'Card saved',
  'callback.settings_changed': 'Callback settings changed',
  'callback.test_sent': 'Test callback sent',
  'callback.resent': 'Callback resent',
  'callback.resumed': 'Callbacks resumed',
  'topup.succeeded': 'Top-up',
  'topup.failed': 'Top-up failed',
  'topup.unknown': 'Top-up outcome unknown',
  'organisation.created': 'Organisation created',
  'organisation.updated': 'Organisation updated',
};

function rows(entries: readonly AuditEntry[], ctx: DetailContext): SafeHtml {
  return html`${entries.map(
    (e) =>
      html`<tr>
        <td>${formatDateTime(e.at, ctx.timeZone)}</td>
        <td>${ACTION_LABELS[e.action] ?? e.action}</td>
        <td>${activityActor(e.actor)}</td>
        <td>${e.source}</td>
        <td class="details">${activityDetails(e, ctx)}</td>
      </tr>`,
  )}`;
}

function parseBefore(query: unknown): number | undefined {
  const raw = (query as Record<string, unknown>)['before'];
  if (typeof raw !== 'string' || !/^[0-9]{1,15}$/.test(raw)) return undefined;
  return Number(raw);
}

export function registerActivityPage(app: FastifyInstance, deps: AppDeps): void {
  app.get('/portal/activity', async (request, reply) => {
    const view = requirePermission(request, 'activity.read');
    const beforeId = parseBefore(request.query);
    const page = await auditTrail(deps.store.db, view.organisation.id, {
      beforeId,
      limit: PER_PAGE,
    });
    const last = page.entries.at(-1);
    const older =
      page.more && last !== undefined
        ? html`<p><a href="/portal/activity?before=${last.id}" rel="next">Older activity</a></p>`
        : '';
    const newer =
      beforeId === undefined ? '' : html`<p><a href="/portal/activity">Newest activity</a></p>`;
    const table =
      page.entries.length === 0
        ? html`<p>No activity yet.</p>`
        : html`<div class="table-wrap" role="region" tabindex="0" aria-label="Activity">
            <table>
              <caption>
                Sensitive actions, newest first
              </caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">What</th>
                  <th scope="col">Who</th>
                  <th scope="col">From</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                ${rows(page.entries, {
                  currency: view.organisation.currency,
                  timeZone: view.user.timeZone,
                })}
              </tbody>
            </table>
          </div>`;
    const body = html`${table}${newer}${older}`;
    return sendPage(reply, view, { title: 'Activity', current: 'activity', body });
  });
}
