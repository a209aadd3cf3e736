import type { DeliveryDetail, DeliverySummary } from '../../domain/callbacks/deliveries.js';
import type { SentRequest } from '../../domain/simulator/console.js';
import type { ApiRequestRow, MailRecord } from '../../domain/simulator/simulator-reads.js';
import type { SimFault } from '../../domain/simulator/fault.js';
import type { SmsRow } from '../../domain/esims/esim-reads.js';
import type { PortalView } from '../context.js';
import { formatDateTime } from '../format.js';
import { actionForm, csrfField, formError, selectField, textField } from '../forms.js';
import type { SafeHtml } from '../html.js';
import { html } from '../html.js';
import { offsetText } from '../layout.js';
import { alertLabel } from './delivery-labels.js';

// The simulator console's pages, pure functions of what they show.

export type ConsoleSection = 'clock' | 'esim' | 'faults';

export interface ConsoleState {
  readonly iccids: readonly string[];
  readonly faults: readonly SimFault[];
  readonly canWrite: boolean;
  /** The message of a refused form, by the section it belongs to. */
  readonly errors?: Partial<Record<ConsoleSection, string>>;
  /** What the eSIM form was filled with, kept after a refusal. */
  readonly iccid?: string;
}

const SUBPAGES = [
  { href: '/portal/simulator', label: 'Console' },
  { href: '/portal/simulator/outbox', label: 'SMS and mail' },
  { href: '/portal/simulator/callbacks', label: 'Callbacks' },
  { href: '/portal/simulator/requests', label: 'Request journal' },
] as const;

export function consoleNav(current: string): SafeHtml {
  return html`<nav aria-label="Simulator" class="subnav">
    <ul class="plain inline-list">
      ${SUBPAGES.map(
        (p) =>
          html`<li>
            <a href="${p.href}" ${p.href === current ? html` aria-current="page"` : ''}
              >${p.label}</a
            >
          </li>`,
      )}
    </ul>
  </nav>`;
}

function clockSection(view: PortalView, state: ConsoleState): SafeHtml {
  const clock = view.simulator;
  const now =
    clock === undefined
      ? ''
      : `${formatDateTime(clock.now, view.user.timeZone)}, ${offsetText(clock.offsetSeconds)}`;
  const form = state.canWrite
    ? html`<form method="post" action="/portal/simulator/clock" class="stack">
        ${csrfField(view)} ${formError(state.errors?.clock)}
        ${textField({
          name: 'amount',
          label: 'Advance by',
          type: 'number',
          value: '1',
          required: true,
          attributes: { min: 1, max: 3660, step: 1 },
        })}
        ${selectField({
          name: 'unit',
          label: 'Unit',
          value: 'days',
          options: [
            { value: 'minutes', label: 'Minutes' },
            { value: 'hours', label: 'Hours' },
            { value: 'days', label: 'Days' },
          ],
        })}
        <button type="submit" class="primary">Advance the clock</button>
      </form>`
    : html``;
  return html`<section aria-labelledby="clock-heading">
    <h2 id="clock-heading">Clock</h2>
    <p data-testid="console-clock">${now}</p>
    <p class="hint">
      The clock only moves forward. Whatever falls due by the new time (processing, expiry) is
      applied before the page comes back.
    </p>
    ${form}
  </section>`;
}

function esimSection(view: PortalView, state: ConsoleState): SafeHtml {
  if (!state.canWrite) return html``;
  const options = state.iccids.map((iccid) => html`<option value="${iccid}"></option>`);
  return html`<section aria-labelledby="esim-heading">
    <h2 id="esim-heading">An eSIM on the network</h2>
    <p class="hint">
      One of your organisation's eSIMs, as a phone and the network would report it.
    </p>
    <form method="post" action="/portal/simulator/esim" class="stack">
      ${csrfField(view)} ${formError(state.errors?.esim)}
      ${textField({
        name: 'iccid',
        label: 'ICCID',
        value: state.iccid ?? state.iccids[0] ?? '',
        required: true,
        attributes: { list: 'own-iccids', inputmode: 'numeric', autocomplete: 'off' },
      })}
      <datalist id="own-iccids">${options}</datalist>
      ${selectField({
        name: 'status',
        label: 'Profile status (Install)',
        value: 'Installed',
        options: ['Installed', 'Downloaded', 'Unavailable'],
      })}
      <button type="submit" name="action" value="install">Install</button>
      ${textField({
        name: 'country',
        label: 'Country (Attach or move)',
        value: 'FR',
        hint: 'Two letters, e.g. FR. Attaching in another country moves the eSIM there.',
        attributes: { maxlength: 2, autocomplete: 'off' },
      })}
      <button type="submit" name="action" value="attach">Attach or move</button>
      ${textField({
        name: 'mb',
        label: 'Data (MB)',
        type: 'number',
        value: '100',
        attributes: { min: 0.001, max: 1000000, step: 'any' },
      })}
      <button type="submit" name="action" value="usage">Use data</button>
    </form>
  </section>`;
}

function faultRow(view: PortalView, f: SimFault, canWrite: boolean): SafeHtml {
  const fires =
    f.remaining !== null
      ? `the next ${f.remaining} call${f.remaining === 1 ? '' : 's'}`
      : f.probability !== null
        ? `${Math.round(f.probability * 100)} % of calls`
        : 'every call';
  return html`<tr>
    <td>${f.method} ${f.route}</td>
    <td>${f.status === null ? 'no error' : String(f.status)}</td>
    <td>${f.latencyMs > 0 ? `${f.latencyMs} ms` : '—'}</td>
    <td>${fires}</td>
    ${
      canWrite
        ? html`<td>
            ${actionForm(view, '/portal/simulator/faults/remove', 'Remove', { fields: { id: f.id } })}
          </td>`
        : html``
    }
  </tr>`;
}

function faultsSection(view: PortalView, state: ConsoleState): SafeHtml {
  const list =
    state.faults.length === 0
      ? html`<p data-testid="no-faults">No fault is set: every call is answered normally.</p>`
      : html`<div class="table-wrap" role="region" tabindex="0" aria-label="Faults">
          <table>
            <thead>
              <tr>
                <th scope="col">Calls</th>
                <th scope="col">Answer</th>
                <th scope="col">Delay</th>
                <th scope="col">Fires on</th>
                ${state.canWrite ? html`<th scope="col">Action</th>` : html``}
              </tr>
            </thead>
            <tbody>
              ${state.faults.map((f) => faultRow(view, f, state.canWrite))}
            </tbody>
          </table>
        </div>`;
  const form = state.canWrite
    ? html`<form method="post" action="/portal/simulator/faults" class="stack">
        ${csrfField(view)} ${formError(state.errors?.faults)}
        ${textField({
          name: 'route',
          label: 'Path',
          value: '/v2.1/orders',
          required: true,
          hint: 'A path such as /v2.1/orders; * matches any run of characters.',
        })}
        ${selectField({
          name: 'method',
          label: 'Method',
          value: '*',
          options: [{ value: '*', label: 'Any' }, 'GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
        })}
        ${textField({
          name: 'status',
          label: 'Answer with status',
          type: 'number',
          value: '503',
          attributes: { min: 400, max: 599 },
        })}
        ${textField({
          name: 'count',
          label: 'For the next (calls)',
          type: 'number',
          value: '1',
          hint: 'Leave empty to fire on every call until removed.',
          attributes: { min: 1, max: 1000000 },
        })}
        <button type="submit">Add the fault</button>
      </form>`
    : html``;
  return html`<section aria-labelledby="faults-heading">
    <h2 id="faults-heading">Faults</h2>
    <p class="hint">Faults apply to every organisation of this simulator.</p>
    ${list} ${form}
  </section>`;
}

export function consoleBody(view: PortalView, state: ConsoleState): SafeHtml {
  return html`${consoleNav('/portal/simulator')}
    <div class="console-grid">${clockSection(view, state)} ${esimSection(view, state)}</div>
    ${faultsSection(view, state)}`;
}

export function outboxBody(
  view: PortalView,
  sms: readonly SmsRow[],
  mail: readonly MailRecord[],
): SafeHtml {
  const tz = view.user.timeZone;
  const smsList =
    sms.length === 0
      ? html`<p>No SMS has been sent to your eSIMs.</p>`
      : html`<ul class="plain messages" data-testid="sms-outbox">
          ${sms.map(
            (m) =>
              html`<li>
                <p>
                  <strong>To ${m.msisdn}</strong> (eSIM
                  <a href="/portal/esims/${m.iccid}">${m.iccid}</a>),
                  ${formatDateTime(m.created_at, tz)}, from ${m.sender}
                </p>
                <pre class="sent">${m.message}</pre>
              </li>`,
          )}
        </ul>`;
  const mailList =
    mail.length === 0
      ? html`<p>No mail has been sent to your users.</p>`
      : html`<ul class="plain messages" data-testid="mail-outbox">
          ${mail.map(
            (m) =>
              html`<li>
                <p><strong>${m.subject}</strong>, to ${m.to}, ${formatDateTime(m.at, tz)}</p>
                <pre class="sent">${m.body}</pre>
              </li>`,
          )}
        </ul>`;
  return html`${consoleNav('/portal/simulator/outbox')}
    <section aria-labelledby="sms-heading">
      <h2 id="sms-heading">SMS to your eSIMs</h2>
      ${smsList}
    </section>
    <section aria-labelledby="mail-heading">
      <h2 id="mail-heading">Mail to your users</h2>
      ${mailList}
    </section>`;
}

export function callbacksBody(view: PortalView, deliveries: readonly DeliverySummary[]): SafeHtml {
  const tz = view.user.timeZone;
  const rows = deliveries.map(
    (d) =>
      html`<tr>
        <td><a href="/portal/simulator/callbacks/${d.id}">${alertLabel(d)}</a></td>
        <td>${d.iccid}</td>
        <td>${d.status}</td>
        <td class="num">${d.attemptCount}</td>
        <td>${formatDateTime(d.createdAt, tz)}</td>
      </tr>`,
  );
  return html`${consoleNav('/portal/simulator/callbacks')}
    <p>The newest callbacks to your organisation, with the requests each attempt sent.</p>
    ${
      rows.length === 0
        ? html`<p>No callback yet.</p>`
        : html`<div class="table-wrap" role="region" tabindex="0" aria-label="Callbacks">
            <table>
              <thead>
                <tr>
                  <th scope="col">Callback</th>
                  <th scope="col">eSIM</th>
                  <th scope="col">Status</th>
                  <th scope="col" class="num">Attempts</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                ${rows}
              </tbody>
            </table>
          </div>`
    }`;
}

function prettyBody(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body) as unknown, null, 2);
  } catch {
    return body;
  }
}

export function callbackBody(
  view: PortalView,
  delivery: DeliveryDetail,
  requests: readonly SentRequest[],
): SafeHtml {
  const tz = view.user.timeZone;
  const attempts =
    requests.length === 0
      ? html`<p>Not sent yet: ${delivery.status}.</p>`
      : requests.map(
          (r) =>
            html`<section aria-labelledby="attempt-${r.attemptNo}" data-testid="attempt">
              <h3 id="attempt-${r.attemptNo}">
                Attempt ${r.attemptNo}, ${formatDateTime(r.attemptedAt, tz)}:
                ${r.statusCode === 0 ? `no answer${r.error === '' ? '' : ` (${r.error})`}` : `answered ${r.statusCode}`}
              </h3>
              <p>POST <code>${r.url}</code></p>
              <h4>Request headers</h4>
              <pre class="sent" data-testid="request-headers">
${
                  Object.entries(r.headers)
                    .map(([k, v]) => `${k}: ${v}`)
                    .join('\n') || '(not kept for this attempt)'
                }</pre>
              <h4>Request body</h4>
              <pre class="sent" data-testid="request-body">
${r.body === '' ? '(not kept for this attempt)' : prettyBody(r.body)}</pre>
              ${
                r.responseSnippet === ''
                  ? html``
                  : html`<h4>Response</h4>
                      <pre class="sent">${r.responseSnippet}</pre>`
              }
            </section>`,
        );
  return html`${consoleNav('/portal/simulator/callbacks')}
    <dl class="facts">
      <dt>Callback</dt>
      <dd>${alertLabel(delivery)}</dd>
      <dt>eSIM</dt>
      <dd><a href="/portal/esims/${delivery.iccid}">${delivery.iccid}</a></dd>
      <dt>Status</dt>
      <dd>${delivery.status}</dd>
    </dl>
    ${attempts}`;
}

export function requestsBody(view: PortalView, rows: readonly ApiRequestRow[]): SafeHtml {
  const tz = view.user.timeZone;
  return html`${consoleNav('/portal/simulator/requests')}
    <p>
      Your organisation's newest API calls (made with its key), newest first, with the simulated
      time. The query of each path is left out.
    </p>
    ${
      view.organisation.ipAllowList.length === 0
        ? html``
        : html`<p>
            A call from an address outside your IP allow-list is listed with the 403 its caller got
            (the same as for a wrong key); <a href="/portal/activity">Activity</a> names the
            address.
          </p>`
    }
    ${
      rows.length === 0
        ? html`<p>No API call yet.</p>`
        : html`<div class="table-wrap" role="region" tabindex="0" aria-label="Request journal">
            <table data-testid="journal">
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Method</th>
                  <th scope="col">Path</th>
                  <th scope="col" class="num">Status</th>
                  <th scope="col" class="num">Took</th>
                </tr>
              </thead>
              <tbody>
                ${rows.map(
                  (r) =>
                    html`<tr>
                      <td>${formatDateTime(r.at, tz)}</td>
                      <td>${r.method}</td>
                      <td class="details"><code>${r.path}</code></td>
                      <td class="num">${r.status}</td>
                      <td class="num">${r.duration_ms} ms</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }`;
}
