import type { DeliveryDetail, DeliverySummary } from '../../domain/callbacks/deliveries.js';
import { RESENDABLE } from '../../domain/callbacks/deliveries.js';
import type { KeySummary } from '../../domain/access/api-access.js';
import { isTestEventIccid } from '../../domain/access/api-access.js';
import type { EndpointStatus } from '../../domain/callbacks/endpoint-health.js';
import { formatDateTime } from '../format.js';
import type { SafeHtml } from '../html.js';
import { html } from '../html.js';
import { formError, selectField, textField } from '../forms.js';
import type { FormState } from './billing-view.js';
import type { Shown } from './money-view.js';
import { pager, when } from './money-view.js';
import { alertLabel } from './delivery-labels.js';

// The API & callbacks page body and the delivery detail, pure functions of what they show.

/** The grace periods offered when rotating, in seconds; `default` follows the reason. */
export const GRACE_CHOICES: readonly { value: string; seconds: number; label: string }[] = [
  { value: 'default', seconds: -1, label: 'As the reason says (leak: none; routine: 24 hours)' },
  { value: '0', seconds: 0, label: 'No grace: the old key stops at once' },
  { value: '3600', seconds: 3600, label: '1 hour' },
  { value: '86400', seconds: 86_400, label: '24 hours' },
  { value: '604800', seconds: 7 * 86_400, label: '7 days' },
];

/** Why the key is rotated: a leak gets no grace period. */
export const ROTATE_REASONS: readonly { value: string; label: string }[] = [
  { value: '', label: 'Choose…' },
  { value: 'leak', label: 'The key leaked, or may have' },
  { value: 'routine', label: 'Routine change' },
];

export interface ApiData {
  readonly key: KeySummary;
  /** The whole key, right after a confirmed reveal (or a rotation). */
  readonly shownKey?: {
    readonly key: string;
    readonly rotated: boolean;
    readonly oldUntil?: string;
  };
  readonly callbackUrl: string;
  readonly callbackVersion: string;
  /** The organisation's IP allow-list; empty: any address. */
  readonly ipAllowList: readonly string[];
  readonly deliveries: readonly DeliverySummary[];
  readonly endpoint: EndpointStatus;
  readonly total: number;
  readonly page: number;
  readonly perPage: number;
  readonly can: { readonly reveal: boolean; readonly rotate: boolean; readonly callbacks: boolean };
  readonly csrf: SafeHtml;
  readonly keyForm: FormState;
  readonly callbackForm: FormState;
  readonly allowListForm: FormState;
}

function confirmBox(name: string, label: string, error: string | undefined): SafeHtml {
  const id = `field-${name}`;
  return html`<div class="field field-check${error === undefined ? '' : ' field-invalid'}">
    <input
      type="checkbox"
      id="${id}"
      name="${name}"
      value="yes"
      ${error === undefined ? '' : html` aria-invalid="true" aria-describedby="${id}-error"`}
    />
    <label for="${id}">${label}</label>
    ${error === undefined ? '' : html`<p class="error" id="${id}-error" role="alert">${error}</p>`}
  </div>`;
}

function shownKey(d: ApiData, shown: Shown): SafeHtml {
  const s = d.shownKey;
  if (s === undefined) return html``;
  return html`<div class="reveal" role="status">
    <p>
      ${s.rotated ? 'Your new API key. Copy it now: this page shows it once.' : 'Your API key:'}
    </p>
    <p><code data-testid="api-key">${s.key}</code></p>
    ${s.oldUntil === undefined ? '' : html`<p>The previous key works until ${when(s.oldUntil, shown)}.</p>`}
  </div>`;
}

function keySection(d: ApiData, shown: Shown): SafeHtml {
  const errors = d.keyForm.errors;
  const reveal = !d.can.reveal
    ? ''
    : html`<form method="post" action="/portal/api/key/reveal" class="stack">
        ${d.csrf}
        ${confirmBox('confirm', 'Show the whole key (each reveal is recorded in the activity log)', errors['reveal'])}
        <button type="submit">Reveal key</button>
      </form>`;
  const rotate = !d.can.rotate
    ? ''
    : html`<form method="post" action="/portal/api/key/rotate" class="stack">
        ${d.csrf}
        <h3>Rotate the key</h3>
        <p class="hint">
          The new key signs V3 callbacks at once. During a grace period the old key keeps working
          for every API call (orders, top-ups from the saved card, SMS), but no longer reads the new
          key. After a leak choose no grace: the old key then stops at once, with every earlier key
          still in grace.
        </p>
        ${selectField({ name: 'reason', label: 'Why are you rotating the key?', options: ROTATE_REASONS, error: errors['reason'] })}
        ${selectField({ name: 'grace', label: 'The old key keeps working for', options: GRACE_CHOICES.map((c) => ({ value: c.value, label: c.label })), error: errors['grace'] })}
        ${confirmBox('confirmRotate', 'Replace the API key now', errors['rotate'])}
        <button type="submit">Rotate key</button>
      </form>`;
  const grace = d.key.inGrace.map(
    (k) =>
      html`<li>
        A previous key works until ${when(k.validUntil, shown)} (rotated
        ${when(k.rotatedAt, shown)}).
      </li>`,
  );
  return html`<section aria-labelledby="key-heading" class="card">
    <h2 id="key-heading">API key</h2>
    <p><code data-testid="masked-key">${d.key.masked}</code></p>
    ${
      grace.length === 0
        ? ''
        : html`<ul>
            ${grace}
          </ul>`
    }
    ${shownKey(d, shown)} ${reveal} ${rotate}
  </section>`;
}

function callbackSection(d: ApiData): SafeHtml {
  const f = d.callbackForm;
  const url = f.values['callbackUrl'] ?? d.callbackUrl;
  const version = f.values['callbackVersion'] ?? d.callbackVersion;
  const radio = (v: string, label: string) =>
    html`<div class="field-check">
      <input
        type="radio"
        id="version-${v}"
        name="callbackVersion"
        value="${v}"
        ${version === v ? html` checked` : ''}
      /><label for="version-${v}">${label}</label>
    </div>`;
  const settings = !d.can.callbacks
    ? html`<p>
        Callback URL: <code>${d.callbackUrl === '' ? 'not set' : d.callbackUrl}</code>, version
        ${d.callbackVersion}.
      </p>`
    : html`<form method="post" action="/portal/api/callback" class="stack" novalidate>
          ${d.csrf}
          ${textField({ name: 'callbackUrl', label: 'Callback URL', value: url, type: 'url', error: f.errors['callbackUrl'], hint: 'Usage callbacks are POSTed here. Leave empty to stop them.' })}
          <fieldset>
            <legend>Callback version</legend>
            ${radio('V2', 'V2: the reduced body, unsigned')}
            ${radio('V3', 'V3: the full body, signed with the API key (X-Signature-SHA256)')}
            ${f.errors['callbackVersion'] === undefined ? '' : html`<p class="error" role="alert">${f.errors['callbackVersion']}</p>`}
          </fieldset>
          <button type="submit">Save callback settings</button>
        </form>
        <form method="post" action="/portal/api/test-event">
          ${d.csrf} ${formError(f.errors['test'])}
          <button type="submit">Send a test event</button>
        </form>`;
  return html`<section aria-labelledby="callback-heading" class="card">
    <h2 id="callback-heading">Usage callbacks</h2>
    ${settings}
  </section>`;
}

function allowListSection(d: ApiData): SafeHtml {
  const f = d.allowListForm;
  const current =
    d.ipAllowList.length === 0
      ? html`<p data-testid="ip-allow-list">Any address may use the API key.</p>`
      : html`<p data-testid="ip-allow-list">
          Only these addresses may use the API key: ${d.ipAllowList.join(', ')}.
        </p>`;
  const error = f.errors['ipAllowList'];
  const form = !d.can.rotate
    ? html``
    : html`<form method="post" action="/portal/api/ip-allow-list" class="stack" novalidate>
        ${d.csrf}
        <div class="field${error === undefined ? '' : ' field-invalid'}">
          <label for="field-ipAllowList">Allowed addresses</label>
          <textarea
            id="field-ipAllowList"
            name="ipAllowList"
            rows="4"
            aria-describedby="field-ipAllowList-hint${error === undefined ? '' : ' field-ipAllowList-error'}"
            ${error === undefined ? '' : html` aria-invalid="true"`}
          >
${f.values['ipAllowList'] ?? d.ipAllowList.join('\n')}</textarea>
          <p class="hint" id="field-ipAllowList-hint">
            One IPv4 or IPv6 address or CIDR range per line (e.g. 203.0.113.7, 198.51.100.0/24).
            Requests from any other address are refused as if the key were wrong, on every API
            version. Leave empty to allow any address.
          </p>
          ${
            error === undefined
              ? ''
              : html`<p class="error" id="field-ipAllowList-error" role="alert">${error}</p>`
          }
        </div>
        <button type="submit">Save IP allow-list</button>
      </form>`;
  return html`<section aria-labelledby="allow-list-heading" class="card">
    <h2 id="allow-list-heading">IP allow-list</h2>
    ${current} ${form}
  </section>`;
}

export function resendButton(d: DeliverySummary, csrf: SafeHtml): SafeHtml {
  if (!RESENDABLE.includes(d.status)) return html``;
  return html`<form method="post" action="/portal/api/deliveries/${d.id}/resend" class="inline">
    ${csrf}<button type="submit" aria-label="Resend delivery ${d.id}">Resend</button>
  </form>`;
}

/** Whether deliveries are getting through: paused, backed off, or nothing to say. */
function endpointState(d: ApiData, shown: Shown): SafeHtml {
  const e = d.endpoint;
  if (e.pausedAt !== null) {
    const resume = d.can.callbacks
      ? html`<form method="post" action="/portal/api/callback/resume">
          ${d.csrf}
          <button type="submit">Resume deliveries</button>
        </form>`
      : '';
    return html`<div class="notice" role="status" data-testid="endpoint-state">
      <p>
        <strong>Deliveries paused</strong> since ${formatDateTime(e.pausedAt, shown.timeZone)}: your
        callback URL gave no answer to ${e.failures} attempts in a row. ${e.openEvents} callbacks
        wait; nothing is sent until deliveries are resumed.
      </p>
      ${resume}
    </div>`;
  }
  if (e.backoffUntil !== null) {
    return html`<p role="status" data-testid="endpoint-state">
      <strong>Deliveries backed off</strong> until
      ${formatDateTime(e.backoffUntil, shown.timeZone)}: your callback URL gave no answer to the
      last ${e.failures} attempts.
    </p>`;
  }
  return html``;
}

function deliverySection(d: ApiData, shown: Shown): SafeHtml {
  const rows = d.deliveries.map(
    (x) =>
      html`<tr>
        <td>${when(x.createdAt, shown)}</td>
        <td>${alertLabel(x)}${isTestEventIccid(x.iccid) ? ' (test)' : ''}</td>
        <td>${x.iccid}</td>
        <td><span class="status status-${x.status}">${x.status}</span></td>
        <td class="num">${x.attemptCount}</td>
        <td class="num">${x.lastStatusCode === 0 ? '—' : x.lastStatusCode}</td>
        <td>
          <a href="/portal/api/deliveries/${x.id}"
            >Attempts<span class="visually-hidden"> of delivery ${x.id}</span></a
          >
          ${d.can.callbacks ? resendButton(x, d.csrf) : ''}
        </td>
      </tr>`,
  );
  return html`<section aria-labelledby="deliveries-heading" class="card">
    <h2 id="deliveries-heading">Delivery log</h2>
    ${endpointState(d, shown)}
    ${
      rows.length === 0
        ? html`<p>No callbacks yet.</p>`
        : html`<div class="table-wrap" role="region" tabindex="0" aria-label="Deliveries">
            <table data-testid="deliveries">
              <thead>
                <tr>
                  <th scope="col">Created</th>
                  <th scope="col">Event</th>
                  <th scope="col">ICCID</th>
                  <th scope="col">Status</th>
                  <th scope="col" class="num">Attempts</th>
                  <th scope="col" class="num">Last HTTP status</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                ${rows}
              </tbody>
            </table>
          </div>`
    }
    ${pager('/portal/api', d.page, d.perPage, d.total, 'Delivery log')}
  </section>`;
}

export function apiBody(d: ApiData, shown: Shown): SafeHtml {
  return html`${keySection(d, shown)} ${allowListSection(d)} ${callbackSection(d)}
  ${deliverySection(d, shown)}`;
}

export function deliveryBody(
  d: DeliveryDetail,
  shown: Shown,
  options: { canResend: boolean; csrf: SafeHtml },
): SafeHtml {
  const rows = d.attempts.map(
    (a) =>
      html`<tr>
        <td class="num">${a.attemptNo}</td>
        <td>${when(a.attemptedAt, shown)}</td>
        <td>${a.statusCode === 0 ? 'no answer' : a.statusCode}</td>
        <td class="num">${a.latencyMs} ms</td>
        <td>${a.error}</td>
        <td><code class="snippet">${a.responseSnippet}</code></td>
      </tr>`,
  );
  return html`<p><a href="/portal/api">Back to API &amp; callbacks</a></p>
    <dl class="figures">
      <div>
        <dt>Event</dt>
        <dd>${alertLabel(d)} for ${d.iccid}</dd>
      </div>
      <div>
        <dt>Status</dt>
        <dd data-testid="delivery-status">${d.status}</dd>
      </div>
      <div>
        <dt>Created</dt>
        <dd>${when(d.createdAt, shown)}</dd>
      </div>
      <div>
        <dt>Delivered</dt>
        <dd>${when(d.deliveredAt, shown)}</dd>
      </div>
      ${
        d.nextAttemptAt === ''
          ? ''
          : html`<div>
              <dt>Next attempt</dt>
              <dd>${when(d.nextAttemptAt, shown)}</dd>
            </div>`
      }
    </dl>
    ${options.canResend ? resendButton(d, options.csrf) : ''}
    <h2>Attempts</h2>
    ${
      rows.length === 0
        ? html`<p>No attempt yet.</p>`
        : html`<div class="table-wrap" role="region" tabindex="0" aria-label="Delivery attempts">
            <table data-testid="attempts">
              <thead>
                <tr>
                  <th scope="col" class="num">#</th>
                  <th scope="col">When</th>
                  <th scope="col">HTTP status</th>
                  <th scope="col" class="num">Latency</th>
                  <th scope="col">Error</th>
                  <th scope="col">Response</th>
                </tr>
              </thead>
              <tbody>
                ${rows}
              </tbody>
            </table>
          </div>`
    }
    <h2>Payload</h2>
    <pre><code>${JSON.stringify(d.payload, null, 2)}</code></pre>`;
}
