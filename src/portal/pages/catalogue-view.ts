import type { Bundle } from '../../domain/catalogue/bundle.js';
import { REGIONS } from '../../domain/catalogue/countries.js';
import { formatBytes, formatMoney } from '../format.js';
import type { SafeHtml } from '../html.js';
import { html } from '../html.js';
import { countedNoun } from './page-links.js';

// The Catalogue page's body: the search form (the API's filters) and one page of bundles.

export interface CatalogueSearch {
  readonly description: string;
  readonly countries: string;
  readonly region: string;
  readonly group: string;
}

export type CatalogueField = keyof CatalogueSearch | 'page';

export interface CatalogueBody {
  readonly search: CatalogueSearch;
  readonly groups: readonly string[];
  readonly currency: string;
  readonly bundles: readonly Bundle[];
  readonly total: number;
  readonly canBuy: boolean;
  readonly error?: { readonly field: CatalogueField; readonly message: string };
  readonly pager: SafeHtml;
}

const COUNTRIES_SHOWN = 6;

function errorFor(body: CatalogueBody, field: CatalogueField): SafeHtml {
  if (body.error?.field !== field) return html``;
  return html`<p class="error" id="${field}-error">${body.error.message}</p>`;
}

function describedBy(body: CatalogueBody, field: CatalogueField): SafeHtml {
  return body.error?.field === field
    ? html` aria-describedby="${field}-error" aria-invalid="true"`
    : html``;
}

function options(values: readonly string[], selected: string, anyLabel: string): SafeHtml[] {
  return [
    html`<option value="">${anyLabel}</option>`,
    ...values.map((v) =>
      v === selected
        ? html`<option value="${v}" selected>${v}</option>`
        : html`<option value="${v}">${v}</option>`,
    ),
  ];
}

function searchForm(body: CatalogueBody): SafeHtml {
  const s = body.search;
  return html`<form method="get" action="/portal/catalogue" class="filters" role="search">
      <div class="field">
        <label for="description">Description</label>
        <input
          id="description"
          name="description"
          value="${s.description}"
          maxlength="200"
          ${describedBy(body, 'description')}
          placeholder="e.g. France or 1GB*7 Days"
        />
        ${errorFor(body, 'description')}
      </div>
      <div class="field">
        <label for="countries">Countries</label>
        <input
          id="countries"
          name="countries"
          value="${s.countries}"
          maxlength="1000"
          ${describedBy(body, 'countries')}
          placeholder="e.g. FR,DE"
        />
        ${errorFor(body, 'countries')}
      </div>
      <div class="field">
        <label for="region">Region</label>
        <select id="region" name="region" ${describedBy(body, 'region')}>
          ${options(REGIONS, s.region, 'Any region')}
        </select>
        ${errorFor(body, 'region')}
      </div>
      <div class="field">
        <label for="group">Group</label>
        <select id="group" name="group" ${describedBy(body, 'group')}>
          ${options(body.groups, s.group, 'All groups')}
        </select>
        ${errorFor(body, 'group')}
      </div>
      <button type="submit">Search</button>
    </form>
    ${errorFor(body, 'page')}`;
}

function countriesOf(bundle: Bundle): string {
  const shown = bundle.countries.slice(0, COUNTRIES_SHOWN).join(', ');
  const more = bundle.countries.length - COUNTRIES_SHOWN;
  return more > 0 ? `${shown} and ${more} more` : shown;
}

function bundleRow(body: CatalogueBody, b: Bundle): SafeHtml {
  const buy = body.canBuy
    ? html`<td>
        <a href="/portal/orders/new?item=${encodeURIComponent(b.name)}"
          >Buy<span class="visually-hidden"> ${b.name}</span></a
        >
      </td>`
    : html``;
  return html`<tr>
    <th scope="row">${b.name}</th>
    <td>${b.description}</td>
    <td>${countriesOf(b)}</td>
    <td class="num">${b.unlimited ? 'Unlimited' : formatBytes(b.dataAmount)}</td>
    <td class="num">${b.duration} days</td>
    <td class="num">${formatMoney(b.price, body.currency)}</td>
    ${buy}
  </tr>`;
}

export function catalogueBody(body: CatalogueBody): SafeHtml {
  const rows = body.bundles.map((b) => bundleRow(body, b));
  const table =
    body.bundles.length === 0
      ? html`<p>No bundles match this search.</p>`
      : html`<div class="table-wrap" role="region" tabindex="0" aria-label="Bundles">
          <table>
            <caption>
              ${countedNoun(body.total, 'bundle')}, prices in ${body.currency}
            </caption>
            <thead>
              <tr>
                <th scope="col">Bundle</th>
                <th scope="col">Description</th>
                <th scope="col">Countries</th>
                <th scope="col" class="num">Data</th>
                <th scope="col" class="num">Validity</th>
                <th scope="col" class="num">Price</th>
                ${body.canBuy ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : html``}
              </tr>
            </thead>
            <tbody>
              ${rows}
            </tbody>
          </table>
        </div>`;
  return html`${searchForm(body)}${table}${body.pager}`;
}
