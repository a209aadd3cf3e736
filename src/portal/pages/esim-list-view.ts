import type { Esim } from '../../domain/esims/esim.js';
import { formatDateTime } from '../format.js';
import type { SafeHtml } from '../html.js';
import { html } from '../html.js';
import { countedNoun } from './page-links.js';

// The eSIMs page's body: search by ICCID and one page of the organisation's eSIMs.

export interface EsimListBody {
  readonly search: string;
  readonly esims: readonly Esim[];
  /** Absent for a search, which is not counted. */
  readonly total?: number;
  readonly timeZone: string;
  readonly error?: string;
  readonly pager: SafeHtml;
}

function searchForm(body: EsimListBody): SafeHtml {
  const error =
    body.error === undefined ? html`` : html`<p class="error" id="iccid-error">${body.error}</p>`;
  return html`<form method="get" action="/portal/esims" class="filters" role="search">
    <div class="field">
      <label for="iccid">ICCID</label>
      <input
        id="iccid"
        name="iccid"
        value="${body.search}"
        inputmode="numeric"
        maxlength="40"
        ${body.error === undefined ? '' : html`aria-describedby="iccid-error" aria-invalid="true"`}
        placeholder="an ICCID or its first digits"
      />
      ${error}
    </div>
    <button type="submit">Search</button>
  </form>`;
}

/** The eSIM's service state (v2.5's `state`), as the detail page names it. */
const STATE: Readonly<Record<Esim['state'], string>> = {
  active: 'Active',
  suspended: 'Suspended',
  deactivated: 'Deactivated',
};

function esimRow(e: Esim, timeZone: string): SafeHtml {
  return html`<tr>
    <th scope="row"><a href="/portal/esims/${e.iccid}">${e.iccid}</a></th>
    <td>${STATE[e.state]}</td>
    <td>${e.profileStatus}</td>
    <td>${e.msisdn ?? ''}</td>
    <td>${e.customerRef ?? ''}</td>
    <td>${formatDateTime(e.createdAt, timeZone)}</td>
  </tr>`;
}

export function esimListBody(body: EsimListBody): SafeHtml {
  let table: SafeHtml;
  if (body.esims.length === 0) {
    table =
      body.search === ''
        ? html`<p>No eSIMs yet: an order with the destination "New eSIMs" issues them.</p>`
        : html`<p>No eSIM's ICCID starts with ${body.search}.</p>`;
  } else {
    table = html`<div class="table-wrap" role="region" tabindex="0" aria-label="eSIMs">
      <table>
        <caption>
          ${
            body.total === undefined
              ? html`eSIMs whose ICCID starts with ${body.search}, in ICCID order`
              : html`${countedNoun(body.total, 'eSIM')}, newest first`
          }
        </caption>
        <thead>
          <tr>
            <th scope="col">ICCID</th>
            <th scope="col">State</th>
            <th scope="col">Profile</th>
            <th scope="col">Phone number</th>
            <th scope="col">Your reference</th>
            <th scope="col">Issued</th>
          </tr>
        </thead>
        <tbody>
          ${body.esims.map((e) => esimRow(e, body.timeZone))}
        </tbody>
      </table>
    </div>`;
  }
  return html`${searchForm(body)}${table}${body.pager}`;
}
