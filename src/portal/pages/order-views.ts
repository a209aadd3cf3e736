import type { StoredOrder } from '../../domain/orders/order-reads.js';
import { formatDateTime, formatMoney } from '../format.js';
import type { SafeHtml } from '../html.js';
import { html } from '../html.js';
import { countedNoun } from './page-links.js';

// The Orders page's list and an order's details.

function contents(order: StoredOrder): string {
  return order.items.map((i) => `${i.quantity} × ${i.item}`).join(', ');
}

function destination(order: StoredOrder): string {
  return order.assign ? 'eSIMs' : 'Inventory';
}

/** 'Completed', then the message unless it only says the same ('Order completed: …' is kept whole). */
function orderStatus(status: string, message: string): string {
  const label = status.charAt(0).toUpperCase() + status.slice(1);
  if (message === '') return label;
  return message.toLowerCase().includes(status.toLowerCase()) ? message : `${label}: ${message}`;
}

export function orderListBody(
  orders: readonly StoredOrder[],
  total: number,
  timeZone: string,
  canBuy: boolean,
  pager: SafeHtml,
): SafeHtml {
  const buy = canBuy
    ? html`<p><a class="button" href="/portal/orders/new">Buy bundles</a></p>`
    : html``;
  if (orders.length === 0)
    return html`${buy}
      <p>No orders yet.</p>
      ${pager}`;
  const rows = orders.map(
    (o) =>
      html`<tr>
        <th scope="row"><a href="/portal/orders/${o.reference}">${o.reference}</a></th>
        <td>${formatDateTime(o.createdAt, timeZone)}</td>
        <td>${contents(o)}</td>
        <td>${destination(o)}</td>
        <td class="num">${formatMoney(o.total, o.currency)}</td>
        <td>${o.status}</td>
      </tr>`,
  );
  return html`${buy}
    <div class="table-wrap" role="region" tabindex="0" aria-label="Orders">
      <table>
        <caption>
          ${countedNoun(total, 'order')}, newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">Reference</th>
            <th scope="col">Placed</th>
            <th scope="col">Contents</th>
            <th scope="col">Destination</th>
            <th scope="col" class="num">Total</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          ${rows}
        </tbody>
      </table>
    </div>
    ${pager}`;
}

function iccidLinks(iccids: readonly string[]): SafeHtml {
  if (iccids.length === 0) return html`Inventory`;
  return html`<ul class="plain">
    ${iccids.map((i) => html`<li><a href="/portal/esims/${i}">${i}</a></li>`)}
  </ul>`;
}

export function orderDetailBody(order: StoredOrder, timeZone: string): SafeHtml {
  const lines = order.items.map(
    (i) =>
      html`<tr>
        <th scope="row">${i.item}</th>
        <td class="num">${i.quantity}</td>
        <td class="num">${formatMoney(i.pricePerUnit, order.currency)}</td>
        <td class="num">${formatMoney(i.subTotal, order.currency)}</td>
        <td>${iccidLinks(i.iccids)}</td>
      </tr>`,
  );
  return html`<p><a href="/portal/orders">All orders</a></p>
    <dl class="facts">
      <dt>Reference</dt>
      <dd>${order.reference}</dd>
      <dt>Placed</dt>
      <dd>${formatDateTime(order.createdAt, timeZone)}</dd>
      <dt>Status</dt>
      <dd>${orderStatus(order.status, order.statusMessage)}</dd>
      <dt>Destination</dt>
      <dd>${destination(order)}</dd>
      <dt>Total</dt>
      <dd>${formatMoney(order.total, order.currency)}</dd>
    </dl>
    <div class="table-wrap" role="region" tabindex="0" aria-label="Order lines">
      <table>
        <caption>
          Lines
        </caption>
        <thead>
          <tr>
            <th scope="col">Bundle</th>
            <th scope="col" class="num">Quantity</th>
            <th scope="col" class="num">Unit price</th>
            <th scope="col" class="num">Subtotal</th>
            <th scope="col">eSIMs</th>
          </tr>
        </thead>
        <tbody>
          ${lines}
        </tbody>
      </table>
    </div>`;
}
