import type {
  AssignmentView,
  EsimBundleView,
  EsimDetails,
} from '../../domain/esims/esim-details.js';
import type { PortalView } from '../context.js';
import { formatBytes, formatDateTime, formatMoney } from '../format.js';
import { actionForm, csrfField } from '../forms.js';
import type { SafeHtml } from '../html.js';
import { html, raw } from '../html.js';
import { usageChart } from './usage-chart.js';

// One eSIM: profile, install QR code, bundles with usage bars, last location, history, and the
// actions the signed-in role may take (send an SMS, revoke an assignment).

export interface EsimDetailOptions {
  readonly canSendSms: boolean;
  readonly canRevoke: boolean;
  /** Whether the role may buy: offers a bundle for this eSIM. */
  readonly canBuy: boolean;
  readonly sms?: { readonly message: string; readonly error: string };
  /** The SMS form's key: a double click or a resent form sends the message once. */
  readonly smsKey?: string;
  readonly revokeError?: string;
  readonly stateError?: string;
}

const MB = 1_000_000;

const STATE_LABEL = {
  active: 'Active',
  suspended: 'Suspended: no data, no SMS',
  deactivated: 'Deactivated: deleted from the account',
} as const;

/** Suspend or unsuspend, and delete (role esims.write); nothing once deleted. */
function stateActions(view: PortalView, d: EsimDetails, opts: EsimDetailOptions): SafeHtml {
  const state = d.esim.state;
  if (!opts.canRevoke) return html``;
  const base = `/portal/esims/${d.esim.iccid}`;
  const error =
    opts.stateError === undefined
      ? html``
      : html`<p class="error form-error" role="alert">${opts.stateError}</p>`;
  if (state === 'deactivated') {
    return html`<section aria-labelledby="state-heading">
      <h2 id="state-heading">Service</h2>
      <p>This eSIM was deleted: its bundles were revoked and it can no longer be used.</p>
    </section>`;
  }
  const toggle =
    state === 'suspended'
      ? actionForm(view, `${base}/unsuspend`, 'Unsuspend')
      : actionForm(view, `${base}/suspend`, 'Suspend', {
          confirm: 'Suspend this eSIM? It gets no data and no SMS until you unsuspend it.',
        });
  const remove = actionForm(view, `${base}/delete`, 'Delete eSIM', {
    confirm:
      'Delete this eSIM for good? Every bundle on it is revoked without refund, and this cannot be undone.',
    danger: true,
  });
  return html`<section aria-labelledby="state-heading">
    <h2 id="state-heading">Service</h2>
    ${error}
    <p>
      Suspending stops data and SMS until you unsuspend; deleting revokes every bundle without
      refund and removes the eSIM from your account for good.
    </p>
    ${toggle} ${remove}
  </section>`;
}

function when(value: string | null, timeZone: string): string {
  return value === null || value === '' ? '' : formatDateTime(value, timeZone);
}

function profile(d: EsimDetails, timeZone: string): SafeHtml {
  const e = d.esim;
  return html`<section aria-labelledby="profile-heading">
    <h2 id="profile-heading">Profile</h2>
    <dl class="facts">
      <dt>State</dt>
      <dd data-testid="esim-state">${STATE_LABEL[e.state]}</dd>
      <dt>Profile status</dt>
      <dd>${e.profileStatus}</dd>
      <dt>Phone number</dt>
      <dd>${e.msisdn ?? 'None'}</dd>
      <dt>First installed</dt>
      <dd>${when(e.firstInstalledAt, timeZone) || 'Never'}</dd>
      <dt>Issued</dt>
      <dd>${when(e.createdAt, timeZone)}</dd>
      <dt>Your reference</dt>
      <dd>${e.customerRef ?? ''}</dd>
      ${
        e.state === 'deactivated'
          ? html``
          : html`<dt>PIN / PUK</dt>
              <dd>${e.pin} / ${e.puk}</dd>`
      }
    </dl>
  </section>`;
}

function install(d: EsimDetails): SafeHtml {
  // The SVG comes from the QR code library, built from our own activation code, not from input.
  return html`<section aria-labelledby="install-heading">
    <h2 id="install-heading">Install</h2>
    <figure class="qr" role="img" aria-label="QR code that installs the eSIM profile">
      ${raw(d.qrSvg)}
    </figure>
    <dl class="facts">
      <dt>Activation code</dt>
      <dd><code>${d.activationCode}</code></dd>
      <dt>SM-DP+ address</dt>
      <dd><code>${d.esim.smdpAddress}</code></dd>
      <dt>Matching ID</dt>
      <dd><code>${d.esim.matchingId}</code></dd>
    </dl>
  </section>`;
}

function usage(a: AssignmentView, bundle: string): SafeHtml {
  const r = a.assignment;
  const used = r.usedBytes;
  if (r.unlimited) return html`${formatBytes(used / MB)} used (unlimited)`;
  const initial = Math.max(r.initialBytes, 1);
  const usedUp = used >= initial;
  const label = `${bundle}: ${formatBytes(used / MB)} used of ${formatBytes(initial / MB)}${usedUp ? ', used up' : ''}`;
  // Less used is better: green up to 80 %, amber beyond, red once used up (never a full green bar).
  return html`<meter
      min="0"
      max="${initial}"
      low="${Math.floor(initial * 0.8)}"
      high="${initial - 1}"
      optimum="0"
      value="${Math.min(used, initial)}"
      aria-label="${label}"
      data-testid="usage-meter"
    ></meter>
    <span
      >${formatBytes(used / MB)} of ${formatBytes(initial / MB)}${usedUp ? ' (used up)' : ''}</span
    >`;
}

function revokeForm(view: PortalView, d: EsimDetails, a: AssignmentView): SafeHtml {
  const r = a.assignment;
  const refund = r.state === 'Active' ? 'without refund' : 'and return the unit to inventory';
  const action = `/portal/esims/${d.esim.iccid}/bundles/${encodeURIComponent(r.bundleName)}/assignments/${encodeURIComponent(r.id)}/revoke`;
  const revoke = actionForm(view, action, 'Revoke', {
    confirm: `Revoke this ${r.bundleName} assignment ${refund}?`,
    danger: true,
  });
  if (a.balanceRefund === undefined) return revoke;
  const amount = formatMoney(a.balanceRefund, view.organisation.currency);
  const toBalance = actionForm(view, action, `Revoke and refund ${amount} to balance`, {
    confirm: `Revoke this ${r.bundleName} assignment and refund ${amount} to the balance?`,
    fields: { refund: 'balance' },
    danger: true,
  });
  return html`${revoke} ${toBalance}`;
}

function assignmentRow(
  view: PortalView,
  d: EsimDetails,
  b: EsimBundleView,
  a: AssignmentView,
  canRevoke: boolean,
): SafeHtml {
  const tz = view.user.timeZone;
  const action = canRevoke && a.revocable ? revokeForm(view, d, a) : html``;
  const r = a.assignment;
  return html`<tr>
    <td>${r.state}</td>
    <td>${usage(a, b.name)}</td>
    <td>${when(r.createdAt, tz)}</td>
    <td>${when(r.startTime, tz)}</td>
    <td>${when(r.endTime, tz) || `unused until ${when(r.validUntil, tz)}`}</td>
    ${canRevoke ? html`<td>${action}</td>` : html``}
  </tr>`;
}

function bundles(view: PortalView, d: EsimDetails, opts: EsimDetailOptions): SafeHtml {
  const error =
    opts.revokeError === undefined
      ? html``
      : html`<p class="error form-error" role="alert">${opts.revokeError}</p>`;
  const tables = d.bundles.map(
    (b) =>
      html`<div class="table-wrap" role="region" tabindex="0" aria-label="${b.name} assignments">
        <table>
          <caption>
            ${b.name}${b.description === '' ? '' : `: ${b.description}`}
          </caption>
          <thead>
            <tr>
              <th scope="col">State</th>
              <th scope="col">Usage</th>
              <th scope="col">Assigned</th>
              <th scope="col">Started</th>
              <th scope="col">Ends</th>
              ${opts.canRevoke ? html`<th scope="col">Action</th>` : html``}
            </tr>
          </thead>
          <tbody>
            ${b.assignments.map((a) => assignmentRow(view, d, b, a, opts.canRevoke))}
          </tbody>
        </table>
      </div>`,
  );
  return html`<section aria-labelledby="bundles-heading">
    <h2 id="bundles-heading">Bundles</h2>
    <h3>Data used per day</h3>
    ${usageChart(d.usageDays, 'Data used per day', 'esim-usage-chart')}
    ${error}${d.bundles.length === 0 ? html`<p>No bundle has been assigned to this eSIM.</p>` : tables}
    ${opts.canBuy ? html`<p><a class="button" href="/portal/orders/new?iccid=${d.esim.iccid}">Buy a bundle for this eSIM</a></p>` : ''}
  </section>`;
}

function location(d: EsimDetails, timeZone: string): SafeHtml {
  const l = d.location;
  const body =
    l === undefined
      ? html`<p>Not seen on a network yet.</p>`
      : html`<dl class="facts">
          <dt>Network</dt>
          <dd>${l.networkName} (MCC ${l.mcc}, MNC ${l.mnc})</dd>
          <dt>Country</dt>
          <dd>${l.country}</dd>
          <dt>Last seen</dt>
          <dd>${when(l.lastSeen, timeZone)}</dd>
        </dl>`;
  return html`<section aria-labelledby="location-heading">
    <h2 id="location-heading">Last location</h2>
    ${body}
  </section>`;
}

function history(d: EsimDetails, timeZone: string): SafeHtml {
  if (d.history.length === 0) {
    return html`<section aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      <p>No events yet.</p>
    </section>`;
  }
  const rows = d.history.map(
    (h) =>
      html`<tr>
        <td>${when(h.at, timeZone)}</td>
        <td>${h.name}</td>
        <td>${h.bundle}</td>
        <td>${h.bundleState}</td>
      </tr>`,
  );
  return html`<section aria-labelledby="history-heading">
    <h2 id="history-heading">History</h2>
    <div class="table-wrap" role="region" tabindex="0" aria-label="History">
      <table>
        <caption>
          Newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Event</th>
            <th scope="col">Bundle</th>
            <th scope="col">Bundle state</th>
          </tr>
        </thead>
        <tbody>
          ${rows}
        </tbody>
      </table>
    </div>
  </section>`;
}

function smsForm(view: PortalView, d: EsimDetails, opts: EsimDetailOptions): SafeHtml {
  if (!opts.canSendSms) return html``;
  if (d.esim.msisdn === null) {
    return html`<section aria-labelledby="sms-heading">
      <h2 id="sms-heading">Send an SMS</h2>
      <p>This eSIM has no phone number, so it cannot receive an SMS.</p>
    </section>`;
  }
  const error = opts.sms?.error ?? '';
  return html`<section aria-labelledby="sms-heading">
    <h2 id="sms-heading">Send an SMS</h2>
    <form method="post" action="/portal/esims/${d.esim.iccid}/sms">
      ${csrfField(view)}
      <input type="hidden" name="key" value="${opts.smsKey ?? ''}" />
      <div class="field">
        <label for="message">Message</label>
        <textarea
          id="message"
          name="message"
          rows="3"
          maxlength="160"
          required
          ${error === '' ? html`aria-describedby="message-hint"` : html`aria-describedby="message-hint message-error" aria-invalid="true"`}
        >
${opts.sms?.message ?? ''}</textarea>
        <p class="hint" id="message-hint">1 to 160 characters, delivered to ${d.esim.msisdn}.</p>
        ${error === '' ? html`` : html`<p class="error" id="message-error">${error}</p>`}
      </div>
      <button type="submit">Send SMS</button>
    </form>
  </section>`;
}

export function esimDetailBody(
  view: PortalView,
  d: EsimDetails,
  opts: EsimDetailOptions,
): SafeHtml {
  const tz = view.user.timeZone;
  return html`<p><a href="/portal/esims">All eSIMs</a></p>
    <div class="columns">
      ${profile(d, tz)}${d.esim.state === 'deactivated' ? html`` : install(d)}
    </div>
    ${stateActions(view, d, opts)}
    ${bundles(view, d, opts)}${location(d, tz)}${smsForm(view, d, opts)}${history(d, tz)}`;
}
