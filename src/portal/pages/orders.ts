import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps.js';
import { notFound } from '../../domain/errors/error-codes.js';
import { findOwnOrder, readOrderPage } from '../../domain/orders/order-reads.js';
import type { PortalView } from '../context.js';
import { redirectWithFlash, requirePermission } from '../context.js';
import type { SafeHtml } from '../html.js';
import { sendPage } from '../layout.js';
import { can } from '../permissions.js';
import type { BuyErrors, BuyValues } from './buy-form.js';
import { MAX_ICCIDS_TEXT, buyErrors, buyRequest } from './buy-form.js';
import type { BundleChoice } from './buy-views.js';
import { buyFormBody, buyReviewBody } from './buy-views.js';
import { catalogueFilter } from '../../domain/catalogue/query.js';
import { readCataloguePage } from '../../domain/catalogue/catalogue-reads.js';
import { orderDetailBody, orderListBody } from './order-views.js';
import { pageLinks, requestedPortalPage } from './page-links.js';
import { formText, queryText } from './query-values.js';
import { buyBundles, reviewKey, reviewOrder } from './shop-actions.js';

// Orders: the list and an order's details (every role reads them), and Buy bundles (Admin):
// form, review with the total, confirm. Confirming places the order through the same use case as
// POST /v2.1/orders, keyed by the review page's idempotency key, so a double click buys once.

const PAGE_SIZE = 50;

type ReferenceRequest = FastifyRequest<{ Params: { reference: string } }>;

function send(reply: FastifyReply, view: PortalView, title: string, body: SafeHtml, status = 200) {
  return sendPage(reply, view, { title, current: 'orders', body, status });
}

function postedValues(request: FastifyRequest): BuyValues {
  return {
    item: formText(request, 'item', 200),
    quantity: formText(request, 'quantity', 20),
    destination: formText(request, 'destination', 20),
    iccids: formText(request, 'iccids', MAX_ICCIDS_TEXT),
  };
}

// The bundle picker offers the organisation's bundles to choose from as one types.
const PICKER_SIZE = 500;

async function bundleChoices(deps: AppDeps, view: PortalView): Promise<BundleChoice[]> {
  const filter = catalogueFilter({ page: '1', perPage: PICKER_SIZE }, view.organisation.groups);
  if (filter === undefined) return [];
  const { bundles } = await readCataloguePage(deps.store.db, deps.store.dialect, filter);
  return bundles.map((b) => ({ name: b.name, description: b.description }));
}

async function showForm(
  deps: AppDeps,
  reply: FastifyReply,
  view: PortalView,
  values: BuyValues,
  errors: BuyErrors,
) {
  const status = Object.keys(errors).length === 0 ? 200 : 400;
  const choices = await bundleChoices(deps, view);
  return send(reply, view, 'Buy bundles', buyFormBody(view, values, errors, choices), status);
}

async function listPage(deps: AppDeps, request: FastifyRequest, reply: FastifyReply) {
  const view = requirePermission(request, 'read');
  const page = requestedPortalPage(queryText(request, 'page', 20), PAGE_SIZE);
  const orgId = view.organisation.id;
  const { total, orders } = await readOrderPage(deps.store.db, orgId, {
    offset: page.offset,
    limit: PAGE_SIZE,
  });
  const pager = pageLinks('/portal/orders', {}, page, total);
  const canBuy = can(view.user.role, 'orders.write');
  return send(
    reply,
    view,
    'Orders',
    orderListBody(orders, total, view.user.timeZone, canBuy, pager),
  );
}

async function review(deps: AppDeps, request: FastifyRequest, reply: FastifyReply) {
  const view = requirePermission(request, 'orders.write');
  const values = postedValues(request);
  const parsed = buyRequest(values, 'validate');
  if ('errors' in parsed) return showForm(deps, reply, view, values, parsed.errors);
  try {
    const validated = await reviewOrder(deps, view.organisation, parsed.request);
    const key = reviewKey(deps, view.organisation.id, parsed.request);
    const body = buyReviewBody(view, values, validated, key);
    return send(reply, view, 'Review your order', body);
  } catch (e) {
    const errors = buyErrors(e);
    if (errors === undefined) throw e;
    return showForm(deps, reply, view, values, errors);
  }
}

async function place(deps: AppDeps, request: FastifyRequest, reply: FastifyReply) {
  const view = requirePermission(request, 'orders.write');
  const values = postedValues(request);
  const parsed = buyRequest(values, 'transaction');
  if ('errors' in parsed) return showForm(deps, reply, view, values, parsed.errors);
  try {
    const key = formText(request, 'key', 1000);
    const reference = await buyBundles(deps, view.organisation, parsed.request, key);
    return redirectWithFlash(
      request,
      reply,
      `/portal/orders/${reference}`,
      `Order ${reference} placed`,
    );
  } catch (e) {
    const errors = buyErrors(e);
    if (errors === undefined) throw e;
    return showForm(deps, reply, view, values, errors);
  }
}

export function registerOrdersPage(app: FastifyInstance, deps: AppDeps): void {
  app.get('/portal/orders', (request, reply) => listPage(deps, request, reply));

  app.get('/portal/orders/new', (request, reply) => {
    const view = requirePermission(request, 'orders.write');
    // From an eSIM's page (?iccid=): a bundle onto that eSIM; from the catalogue (?item=): that bundle.
    const iccid = queryText(request, 'iccid', 40);
    const values = {
      item: queryText(request, 'item'),
      quantity: '1',
      destination: iccid === '' ? 'inventory' : 'existing',
      iccids: iccid,
    };
    return showForm(deps, reply, view, values, {});
  });

  app.post('/portal/orders/new', (request, reply) => {
    const view = requirePermission(request, 'orders.write');
    return showForm(deps, reply, view, postedValues(request), {});
  });

  app.post('/portal/orders/review', (request, reply) => review(deps, request, reply));
  app.post('/portal/orders', (request, reply) => place(deps, request, reply));

  app.get('/portal/orders/:reference', async (request: ReferenceRequest, reply) => {
    const view = requirePermission(request, 'read');
    const reference = request.params.reference.slice(0, 100);
    const order = await findOwnOrder(deps.store.db, view.organisation.id, reference);
    // Another organisation's order reads exactly like one that does not exist.
    if (order === undefined) throw notFound(`order ${reference} not found`);
    return send(reply, view, `Order ${reference}`, orderDetailBody(order, view.user.timeZone));
  });
}
