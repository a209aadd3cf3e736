import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps.js';
import type { EsimListPage } from '../../domain/esims/esim-details.js';
import { listOrganisationEsims, readEsimDetails } from '../../domain/esims/esim-details.js';
import { DomainError } from '../../domain/errors/error-codes.js';
import { deleteEsim, setSuspension } from '../../domain/esims/esim-state.js';
import type { PortalView } from '../context.js';
import { redirectWithFlash, requirePermission } from '../context.js';
import { formatMoney } from '../format.js';
import { formValue } from '../forms.js';
import { html } from '../html.js';
import { sendPage } from '../layout.js';
import { can } from '../permissions.js';
import type { EsimDetailOptions } from './esim-detail-view.js';
import { esimDetailBody } from './esim-detail-view.js';
import { esimListBody } from './esim-list-view.js';
import { keyLinks, pageLinks, requestedPortalPage } from './page-links.js';
import { formText, queryText } from './query-values.js';
import { revokeEsimAssignment, sendEsimSms } from './shop-actions.js';

// eSIMs: the list with search by ICCID, one eSIM's details, and its actions: send an SMS
// (Admin, Support) and revoke an assignment (Admin).

const PAGE_SIZE = 50;

type IccidRequest = FastifyRequest<{ Params: { iccid: string } }>;
type AssignmentRequest = FastifyRequest<{
  Params: { iccid: string; name: string; id: string };
}>;

const isClientError = (e: unknown): e is DomainError =>
  e instanceof DomainError && e.status >= 400 && e.status < 500 && e.status !== 404;

async function listPage(deps: AppDeps, request: FastifyRequest, reply: FastifyReply) {
  const view = requirePermission(request, 'read');
  const search = queryText(request, 'iccid', 40);
  const after = queryText(request, 'after', 40);
  const before = queryText(request, 'before', 40);
  let error: string | undefined;
  let result: EsimListPage = { esims: [], total: 0 };
  let page = { number: 1, size: PAGE_SIZE, offset: 0 };
  try {
    page = requestedPortalPage(queryText(request, 'page', 20), PAGE_SIZE);
    result = await listOrganisationEsims(deps.store.db, view.organisation.id, {
      search,
      offset: page.offset,
      limit: PAGE_SIZE,
      ...(after === '' ? {} : { after }),
      ...(before === '' ? {} : { before }),
    });
  } catch (e) {
    if (!isClientError(e)) throw e;
    error = e.message;
  }
  let pager = html``;
  if (error === undefined) {
    pager =
      result.total === undefined
        ? keyLinks('/portal/esims', { iccid: search }, result)
        : pageLinks('/portal/esims', { iccid: search }, page, result.total);
  }
  const body = esimListBody({
    search,
    esims: result.esims,
    ...(result.total === undefined ? {} : { total: result.total }),
    timeZone: view.user.timeZone,
    error,
    pager,
  });
  const status = error === undefined ? 200 : 400;
  return sendPage(reply, view, { title: 'eSIMs', current: 'esims', body, status });
}

async function detailPage(
  deps: AppDeps,
  view: PortalView,
  iccid: string,
  reply: FastifyReply,
  options: Partial<EsimDetailOptions> = {},
  status = 200,
) {
  const canRevoke = can(view.user.role, 'esims.write');
  // Those who may revoke are offered a refund to the balance where the rules permit one.
  const details = await readEsimDetails(
    deps.store.db,
    view.organisation.id,
    iccid,
    deps.clock.now(),
    canRevoke ? deps : undefined,
  );
  const body = esimDetailBody(view, details, {
    canSendSms: can(view.user.role, 'sms.send'),
    canRevoke,
    canBuy: can(view.user.role, 'orders.write'),
    smsKey: deps.random.uuid(),
    ...options,
  });
  return sendPage(reply, view, { title: `eSIM ${iccid}`, current: 'esims', body, status });
}

export function registerEsimsPage(app: FastifyInstance, deps: AppDeps): void {
  app.get('/portal/esims', (request, reply) => listPage(deps, request, reply));

  app.get('/portal/esims/:iccid', async (request: IccidRequest, reply) => {
    const view = requirePermission(request, 'read');
    return detailPage(deps, view, request.params.iccid, reply);
  });

  app.post('/portal/esims/:iccid/sms', async (request: IccidRequest, reply) => {
    const view = requirePermission(request, 'sms.send');
    const { iccid } = request.params;
    const message = formText(request, 'message', 1000);
    const key = formText(request, 'key', 100);
    try {
      await sendEsimSms(deps, view.organisation.id, iccid, message, key);
    } catch (e) {
      if (!isClientError(e)) throw e;
      const sms = { message, error: e.message };
      return detailPage(deps, view, iccid, reply, { sms }, e.status);
    }
    return redirectWithFlash(request, reply, `/portal/esims/${iccid}`, 'SMS sent');
  });

  const stateAction = (
    path: string,
    act: (orgId: string, iccid: string) => Promise<unknown>,
    flash: string,
  ) =>
    app.post(`/portal/esims/:iccid/${path}`, async (request: IccidRequest, reply) => {
      const view = requirePermission(request, 'esims.write');
      const { iccid } = request.params;
      try {
        await act(view.organisation.id, iccid);
      } catch (e) {
        if (!isClientError(e)) throw e;
        return detailPage(deps, view, iccid, reply, { stateError: e.message }, e.status);
      }
      return redirectWithFlash(request, reply, `/portal/esims/${iccid}`, flash);
    });
  stateAction(
    'suspend',
    (organisationId, iccid) => setSuspension(deps, { organisationId, iccid, suspend: true }),
    'eSIM suspended: no data and no SMS until you unsuspend it',
  );
  stateAction(
    'unsuspend',
    (organisationId, iccid) => setSuspension(deps, { organisationId, iccid, suspend: false }),
    'eSIM unsuspended: data and SMS resume',
  );
  stateAction(
    'delete',
    (organisationId, iccid) => deleteEsim(deps, { organisationId, iccid }),
    'eSIM deleted: its bundles were revoked without refund',
  );

  app.post(
    '/portal/esims/:iccid/bundles/:name/assignments/:id/revoke',
    async (request: AssignmentRequest, reply) => {
      const view = requirePermission(request, 'esims.write');
      const { iccid, name, id } = request.params;
      const toBalance = formValue(request.body, 'refund') === 'balance';
      let done: { refundedToInventory: boolean; refundedAmount: number };
      try {
        const orgId = view.organisation.id;
        done = await revokeEsimAssignment(deps, orgId, iccid, name, id, toBalance);
      } catch (e) {
        if (!isClientError(e)) throw e;
        return detailPage(deps, view, iccid, reply, { revokeError: e.message }, e.status);
      }
      const currency = view.organisation.currency;
      const flash = toBalance
        ? `Assignment revoked; ${formatMoney(done.refundedAmount, currency)} refunded to the balance`
        : done.refundedToInventory
          ? 'Assignment revoked; the unit is back in inventory'
          : 'Assignment revoked';
      return redirectWithFlash(request, reply, `/portal/esims/${iccid}`, flash);
    },
  );
}
