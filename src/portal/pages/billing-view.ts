import type { LedgerEntry, SavedCard } from '../../domain/money/money-reads.js';
import type { SafeHtml } from '../html.js';
import { html } from '../html.js';
import { formError, textField } from '../forms.js';
import type { Shown } from './money-view.js';
import { money, pager, when } from './money-view.js';

// The Billing page body, a pure function of what it shows.

export interface FormState {
  readonly values: Readonly<Record<string, string>>;
  readonly errors: Readonly<Record<string, string>>;
}

export const EMPTY_FORM: FormState = { values: {}, errors: {} };

export interface BillingData {
  readonly balance: number;
  readonly testCredit: number;
  readonly testCreditExpiry: string | null;
  readonly card: SavedCard | undefined;
  readonly entries: readonly LedgerEntry[];
  readonly total: number;
  readonly page: number;
  readonly perPage: number;
  /** May the reader save a card and top up (Admin, Finance)? */
  readonly canWrite: boolean;
  /** Simulator mode: the test processor's cards are listed. */
  readonly simulator: boolean;
  readonly csrf: SafeHtml;
  /** Idempotency keys generated into this rendering of the two forms. */
  readonly cardKey: string;
  readonly topUpKey: string;
  readonly cardForm: FormState;
  readonly topUpForm: FormState;
}

/** "Visa •••• 4242, expires 12/31": never more of the number than the processor gave back. */
export function maskedCard(card: SavedCard): string {
  const month = String(card.expMonth).padStart(2, '0');
  return `${card.brand} •••• ${card.last4}, expires ${month}/${String(card.expYear).slice(-2)}`;
}

function cardSection(d: BillingData, shown: Shown): SafeHtml {
  const f = d.cardForm;
  const saved =
    d.card === undefined
      ? html`<p data-testid="no-card">
          No card saved yet. Top-ups through the API charge the card saved here.
        </p>`
      : html`<p>Saved card: <strong data-testid="saved-card">${maskedCard(d.card)}</strong></p>`;
  const form = !d.canWrite
    ? html``
    : html`<form method="post" action="/portal/billing/card" class="stack" novalidate>
        ${d.csrf}
        <input type="hidden" name="idempotencyKey" value="${d.cardKey}" />
        <h3>${d.card === undefined ? 'Save a card' : 'Replace the card'} with a first payment</h3>
        ${d.simulator ? html`<p class="hint">Simulator: use the test card 4242 4242 4242 4242 (any future expiry, any security code); 4000 0000 0000 0002 is declined. See the payments documentation for the others.</p>` : ''}
        ${formError(f.errors['form'])}
        ${textField({ name: 'number', label: 'Card number', value: '', error: f.errors['number'], hint: (f.values['number'] ?? '') === '' ? undefined : 'Type the number again: a card number is never sent back to the browser.', autocomplete: 'cc-number', attributes: { inputmode: 'numeric' } })}
        ${textField({ name: 'expiry', label: 'Expiry (MM/YY)', value: f.values['expiry'] ?? '', error: f.errors['expiry'], autocomplete: 'cc-exp' })}
        ${textField({ name: 'cvc', label: 'Security code', value: '', error: f.errors['cvc'], autocomplete: 'cc-csc', attributes: { inputmode: 'numeric' } })}
        ${textField({ name: 'payment', label: `First payment (${shown.currency})`, value: f.values['payment'] ?? '', error: f.errors['payment'], hint: 'Charged now and added to the balance.', attributes: { inputmode: 'decimal' } })}
        <button type="submit">Save card and pay</button>
      </form>`;
  return html`<section aria-labelledby="card-heading" class="card">
    <h2 id="card-heading">Card</h2>
    ${saved} ${form}
  </section>`;
}

function topUpSection(d: BillingData, shown: Shown): SafeHtml {
  if (!d.canWrite || d.card === undefined) return html``;
  const f = d.topUpForm;
  return html`<section aria-labelledby="topup-heading" class="card">
    <h2 id="topup-heading">Top up</h2>
    <form method="post" action="/portal/billing/top-up" class="stack" novalidate>
      ${d.csrf}
      <input type="hidden" name="idempotencyKey" value="${d.topUpKey}" />
      ${formError(f.errors['form'])}
      ${textField({ name: 'amount', label: `Amount (${shown.currency})`, value: f.values['amount'] ?? '', error: f.errors['amount'], hint: `Charged to ${maskedCard(d.card)}.`, attributes: { inputmode: 'decimal' } })}
      <button type="submit">Top up</button>
    </form>
  </section>`;
}

function signed(minor: number, shown: Shown): string {
  if (minor === 0) return '';
  return minor > 0 ? `+${money(minor, shown)}` : `−${money(-minor, shown)}`;
}

function ledgerSection(d: BillingData, shown: Shown): SafeHtml {
  const rows = d.entries.map(
    (e) =>
      html`<tr>
        <td>${when(e.createdAt, shown)}</td>
        <td>${e.kind}</td>
        <td>${e.description}</td>
        <td class="num">${signed(e.balanceDelta, shown)}</td>
        <td class="num">${money(e.balanceAfter, shown)}</td>
        <td class="num">${signed(e.testCreditDelta, shown)}</td>
        <td class="num">${money(e.testCreditAfter, shown)}</td>
      </tr>`,
  );
  return html`<section aria-labelledby="ledger-heading" class="card">
    <h2 id="ledger-heading">Ledger</h2>
    <p><a href="/portal/billing/ledger.csv" download>Download the ledger (CSV)</a></p>
    ${
      rows.length === 0
        ? html`<p>No entries yet.</p>`
        : html`<div class="table-wrap" role="region" tabindex="0" aria-label="Ledger">
            <table data-testid="ledger">
              <caption>
                Every movement of money, newest first, with the balance after it
              </caption>
              <thead>
                <tr>
                  <th scope="col">Date</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Description</th>
                  <th scope="col" class="num">Amount</th>
                  <th scope="col" class="num">Balance</th>
                  <th scope="col" class="num">Test credit change</th>
                  <th scope="col" class="num">Test credit</th>
                </tr>
              </thead>
              <tbody>
                ${rows}
              </tbody>
            </table>
          </div>`
    }
    ${pager('/portal/billing', d.page, d.perPage, d.total, 'Ledger')}
  </section>`;
}

export function billingBody(d: BillingData, shown: Shown): SafeHtml {
  const expiry =
    d.testCredit === 0 || d.testCreditExpiry === null
      ? ''
      : ` (expires ${when(d.testCreditExpiry, shown)})`;
  return html`<dl class="figures">
      <div>
        <dt>Balance</dt>
        <dd data-testid="balance">${money(d.balance, shown)}</dd>
      </div>
      <div>
        <dt>Test credit</dt>
        <dd data-testid="test-credit">${money(d.testCredit, shown)}${expiry}</dd>
      </div>
    </dl>
    ${cardSection(d, shown)} ${topUpSection(d, shown)} ${ledgerSection(d, shown)}`;
}
