import type { PlacedOrder } from '../../domain/orders/placement.js';
import type { PortalView } from '../context.js';
import { formatMoney } from '../format.js';
import { csrfField } from '../forms.js';
import type { SafeHtml } from '../html.js';
import { html } from '../html.js';
import type { BuyErrors, BuyField, BuyValues } from './buy-form.js';

// Buy bundles: the form, then the review page with the total and the confirm button.

function errorOf(errors: BuyErrors, field: BuyField): SafeHtml {
  const message = errors[field];
  return message === undefined ? html`` : html`<p class="error" id="${field}-error">${message}</p>`;
}

/** aria-describedby (hint and error) and aria-invalid of a field. */
function describedBy(errors: BuyErrors, field: BuyField, hint = ''): SafeHtml {
  const invalid = errors[field] !== undefined;
  const ids = [hint, invalid ? `${field}-error` : ''].filter((s) => s !== '').join(' ');
  return html`${ids === '' ? '' : html` aria-describedby="${ids}"`}${invalid ? html` aria-invalid="true"` : ''}`;
}

function destinationChoice(
  values: BuyValues,
  value: string,
  label: string,
  hint: string,
): SafeHtml {
  const id = `destination-${value}`;
  const input =
    values.destination === value
      ? html`<input type="radio" id="${id}" name="destination" value="${value}" checked />`
      : html`<input type="radio" id="${id}" name="destination" value="${value}" />`;
  return html`<div class="choice">
    ${input}<label for="${id}">${label}</label> <span class="hint">${hint}</span>
  </div>`;
}

export interface BundleChoice {
  readonly name: string;
  readonly description: string;
}

export function buyFormBody(
  view: PortalView,
  values: BuyValues,
  errors: BuyErrors,
  choices: readonly BundleChoice[] = [],
): SafeHtml {
  const general =
    errors.form === undefined
      ? html``
      : html`<p class="error form-error" role="alert">${errors.form}</p>`;
  return html`<p><a href="/portal/catalogue">Find bundles in the catalogue</a></p>
    ${general}
    <form method="post" action="/portal/orders/review" novalidate>
      ${csrfField(view)}
      <div class="field">
        <label for="item">Bundle</label>
        <input
          id="item"
          name="item"
          value="${values.item}"
          maxlength="200"
          required
          list="bundle-choices"
          autocomplete="off"
          ${describedBy(errors, 'item', 'item-hint')}
        />
        <datalist id="bundle-choices">
          ${choices.map((c) => html`<option value="${c.name}" label="${c.description}"></option>`)}
        </datalist>
        <p class="hint" id="item-hint">
          Type part of a bundle's name or description (a country, "1GB") and pick it from the
          list, e.g. esim_1GB_7D_GB_V2.
        </p>
        ${errorOf(errors, 'item')}
      </div>
      <fieldset${errors.destination === undefined ? '' : html` aria-describedby="destination-error"`}>
        <legend>Destination</legend>
        ${destinationChoice(values, 'inventory', 'Inventory', 'apply the units to eSIMs later')}
        ${destinationChoice(values, 'new', 'New eSIMs', 'one new eSIM per unit')}
        ${destinationChoice(values, 'existing', 'Existing eSIMs', 'one unit on each eSIM listed below')}
        ${errorOf(errors, 'destination')}
      </fieldset>
      <div class="field">
        <label for="quantity">Quantity</label>
        <input
          id="quantity"
          name="quantity"
          value="${values.quantity}"
          inputmode="numeric"
          maxlength="6"
          ${describedBy(errors, 'quantity', 'quantity-hint')}
        />
        <p class="hint" id="quantity-hint">For Inventory and New eSIMs.</p>
        ${errorOf(errors, 'quantity')}
      </div>
      <div class="field">
        <label for="iccids">ICCIDs</label>
        <textarea
          id="iccids"
          name="iccids"
          rows="4"
          ${describedBy(errors, 'iccids', 'iccids-hint')}
        >
${values.iccids}</textarea>
        <p class="hint" id="iccids-hint">For Existing eSIMs: one ICCID per line.</p>
        ${errorOf(errors, 'iccids')}
      </div>
      <button type="submit">Review order</button>
    </form>`;
}

function hidden(values: BuyValues, key: string): SafeHtml {
  return html`<input type="hidden" name="item" value="${values.item}" />
    <input type="hidden" name="quantity" value="${values.quantity}" />
    <input type="hidden" name="destination" value="${values.destination}" />
    <input type="hidden" name="iccids" value="${values.iccids}" />
    <input type="hidden" name="key" value="${key}" />`;
}

const DESTINATION_TEXT: Readonly<Record<string, string>> = {
  inventory: 'Inventory',
  new: 'New eSIMs, one per unit',
  existing: 'The eSIMs listed',
};

/** The review step: what the order will cost; confirming places it (once, whatever the clicks). */
export function buyReviewBody(
  view: PortalView,
  values: BuyValues,
  validated: PlacedOrder,
  key: string,
): SafeHtml {
  const o = validated.order;
  const total = formatMoney(o.total, o.currency);
  const lines = o.items.map(
    (i) =>
      html`<tr>
        <th scope="row">${i.item}</th>
        <td class="num">${i.quantity}</td>
        <td class="num">${formatMoney(i.pricePerUnit, o.currency)}</td>
        <td class="num">${formatMoney(i.subTotal, o.currency)}</td>
      </tr>`,
  );
  return html`<div class="table-wrap" role="region" tabindex="0" aria-label="Your order">
      <table>
        <caption>
          Your order
        </caption>
        <thead>
          <tr>
            <th scope="col">Bundle</th>
            <th scope="col" class="num">Quantity</th>
            <th scope="col" class="num">Unit price</th>
            <th scope="col" class="num">Subtotal</th>
          </tr>
        </thead>
        <tbody>
          ${lines}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colspan="3">Total</th>
            <td class="num"><strong>${total}</strong></td>
          </tr>
        </tfoot>
      </table>
    </div>
    <dl class="facts">
      <dt>Destination</dt>
      <dd>${DESTINATION_TEXT[values.destination] ?? ''}</dd>
    </dl>
    <p>The total is taken from test credit first, then from the balance.</p>
    <form method="post" action="/portal/orders">
      ${csrfField(view)}${hidden(values, key)}
      <button type="submit">Confirm and pay ${total}</button>
    </form>
    <form method="post" action="/portal/orders/new">
      ${csrfField(view)}${hidden(values, key)}
      <button type="submit" class="secondary">Change the order</button>
    </form>`;
}
