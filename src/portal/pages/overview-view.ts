import { isTestEventIccid } from '../../domain/access/api-access.js';
import type { Overview } from '../../domain/organisations/overview.js';
import type { SafeHtml } from '../html.js';
import { html } from '../html.js';
import type { Shown } from './money-view.js';
import { data, money, when } from './money-view.js';
import { usageChart } from './usage-chart.js';
import { alertLabel } from './delivery-labels.js';

// The Overview page body, a pure function of its figures.

function funds(o: Overview, shown: Shown): SafeHtml {
  const expiry =
    o.testCredit === 0
      ? ''
      : o.testCreditExpiry === null
        ? 'does not expire'
        : `${o.testCreditUsable ? 'expires' : 'expired'} ${when(o.testCreditExpiry, shown)}`;
  return html`<section aria-labelledby="funds-heading" class="card">
    <h2 id="funds-heading">Funds</h2>
    <dl class="figures">
      <div>
        <dt>Balance</dt>
        <dd data-testid="balance">${money(o.balance, shown)}</dd>
      </div>
      <div>
        <dt>Test credit</dt>
        <dd data-testid="test-credit">
          ${money(o.testCredit, shown)}${
            expiry === '' ? '' : html` <span class="note">(${expiry})</span>`
          }
        </dd>
      </div>
      <div>
        <dt>Data used, last ${o.usageDays.length} days</dt>
        <dd data-testid="data-used">${data(o.dataUsed)}</dd>
      </div>
    </dl>
    ${usageChart(o.usageDays, 'Data used per day', 'usage-chart')}
    <p><a href="/portal/billing">Billing and top-up</a></p>
  </section>`;
}

function orders(o: Overview, shown: Shown): SafeHtml {
  const rows = o.recentOrders.map(
    (order) =>
      html`<tr>
        <td>
          <a href="/portal/orders/${order.reference}"
            ><span class="visually-hidden">Order ending </span>…${order.reference.slice(-8)}</a
          >
        </td>
        <td>${when(order.createdAt, shown)}</td>
        <td>${order.items.map((i) => `${i.quantity} × ${i.item}`).join(', ')}</td>
        <td class="num">${money(order.total, shown)}</td>
      </tr>`,
  );
  return html`<section aria-labelledby="orders-heading" class="card">
    <h2 id="orders-heading">Recent orders</h2>
    ${
      rows.length === 0
        ? html`<p>No orders yet.</p>`
        : html`<div class="table-wrap" role="region" tabindex="0" aria-label="Recent orders">
            <table>
              <thead>
                <tr>
                  <th scope="col">Order</th>
                  <th scope="col">Placed</th>
                  <th scope="col">Bundles</th>
                  <th scope="col" class="num">Total</th>
                </tr>
              </thead>
              <tbody>
                ${rows}
              </tbody>
            </table>
          </div>`
    }
  </section>`;
}

function esims(o: Overview): SafeHtml {
  return html`<section aria-labelledby="esims-heading" class="card">
    <h2 id="esims-heading">eSIMs by state</h2>
    <dl class="figures">
      ${o.esimsByStatus.map(
        (s) =>
          html`<div>
            <dt>${s.status}</dt>
            <dd data-testid="esims-${s.status}">${s.count}</dd>
          </div>`,
      )}
      <div>
        <dt>Total</dt>
        <dd data-testid="esims-total">${o.esimTotal}</dd>
      </div>
    </dl>
  </section>`;
}

function callbacks(o: Overview, shown: Shown): SafeHtml {
  const { failed, retrying } = o.failing;
  const summary =
    failed + retrying === 0
      ? html`<p data-testid="callbacks-ok">Every callback is getting through.</p>`
      : html`<p data-testid="callbacks-failing">
          <strong>${failed}</strong> failed, <strong>${retrying}</strong> being retried.
        </p>`;
  const rows = o.failedDeliveries.map(
    (d) =>
      html`<li>
        <a href="/portal/api/deliveries/${d.id}"
          >${alertLabel(d)} for ${isTestEventIccid(d.iccid) ? 'a test eSIM' : d.iccid}</a
        >, ${d.attemptCount} attempts, last status
        ${d.lastStatusCode === 0 ? 'no answer' : d.lastStatusCode} (${when(d.updatedAt, shown)})
      </li>`,
  );
  return html`<section aria-labelledby="callbacks-heading" class="card">
    <h2 id="callbacks-heading">Failing callbacks</h2>
    ${summary}
    ${
      rows.length === 0
        ? ''
        : html`<ul>
            ${rows}
          </ul>`
    }
    <p><a href="/portal/api">Callbacks and deliveries</a></p>
  </section>`;
}

export function overviewBody(o: Overview, shown: Shown): SafeHtml {
  return html`<div class="grid">
    ${funds(o, shown)} ${esims(o)} ${orders(o, shown)} ${callbacks(o, shown)}
  </div>`;
}
