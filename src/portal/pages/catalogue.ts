import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.js';
import { catalogueFilter } from '../../domain/catalogue/query.js';
import { DomainError } from '../../domain/errors/error-codes.js';
import { inPortalTerms } from '../messages.js';
import type { Bundle } from '../../domain/catalogue/bundle.js';
import { readCataloguePage } from '../../domain/catalogue/catalogue-reads.js';
import { requirePermission } from '../context.js';
import { html } from '../html.js';
import { sendPage } from '../layout.js';
import { can } from '../permissions.js';
import type { CatalogueBody, CatalogueField, CatalogueSearch } from './catalogue-view.js';
import { catalogueBody } from './catalogue-view.js';
import { pageLinks, requestedPortalPage } from './page-links.js';
import { queryText } from './query-values.js';

// Catalogue: the bundles the organisation may order, searched like GET /v2.1/catalogue (the same
// filter rules, so the same messages), with prices in the organisation's currency.

const PAGE_SIZE = 50;
const FIELDS: readonly CatalogueField[] = ['countries', 'region', 'group', 'description', 'page'];

/** The form field a catalogue query error is about (its message names the query parameter). */
function fieldOf(message: string): CatalogueField {
  return FIELDS.find((f) => message.includes(f)) ?? 'description';
}

export function registerCataloguePage(app: FastifyInstance, deps: AppDeps): void {
  app.get('/portal/catalogue', async (request, reply) => {
    const view = requirePermission(request, 'read');
    const org = view.organisation;
    const search: CatalogueSearch = {
      description: queryText(request, 'description'),
      countries: queryText(request, 'countries', 1000),
      region: queryText(request, 'region', 50),
      group: queryText(request, 'group'),
    };
    const pageText = queryText(request, 'page', 20);
    let bundles: Bundle[] = [];
    let total = 0;
    let error: CatalogueBody['error'];
    let page = { number: 1, size: PAGE_SIZE, offset: 0 };
    try {
      page = requestedPortalPage(pageText, PAGE_SIZE);
      const filter = catalogueFilter(
        { ...search, page: String(page.number), perPage: PAGE_SIZE },
        org.groups,
      );
      if (filter !== undefined) {
        const result = await readCataloguePage(deps.store.db, deps.store.dialect, filter);
        bundles = result.bundles;
        total = result.total;
      }
    } catch (e) {
      if (!(e instanceof DomainError) || e.status !== 400) throw e;
      error = { field: fieldOf(e.message), message: inPortalTerms(e) };
    }
    const body = catalogueBody({
      search,
      groups: org.groups,
      currency: org.currency,
      bundles,
      total,
      canBuy: can(view.user.role, 'orders.write'),
      error,
      pager:
        error === undefined ? pageLinks('/portal/catalogue', { ...search }, page, total) : html``,
    });
    const status = error === undefined ? 200 : 400;
    return sendPage(reply, view, { title: 'Catalogue', current: 'catalogue', body, status });
  });
}
