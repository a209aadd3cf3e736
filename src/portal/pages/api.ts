import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getDelivery, listDeliveries } from '../../domain/callbacks/deliveries.js';
import type { AppDeps } from '../../deps.js';
import { DomainError, badRequest } from '../../domain/errors/error-codes.js';
import {
  updateOrganisationSettings,
  rotateApiKey,
} from '../../domain/organisations/organisation-changes.js';
import type { KeyChangeDeps } from '../../domain/organisations/organisation-changes.js';
import { splitAllowList } from '../../domain/access/ip-allow-list.js';
import {
  readKeySummary,
  resendFromPortal,
  resumeDeliveries,
  revealApiKey,
  sendTestEvent,
} from '../../domain/access/api-access.js';
import { readEndpointStatus } from '../../domain/callbacks/endpoint-health.js';
import type { PortalView } from '../context.js';
import { auditActor, redirectWithFlash, requirePermission } from '../context.js';
import { csrfField, formValue } from '../forms.js';
import { sendPage } from '../layout.js';
import { can } from '../permissions.js';
import type { ApiData } from './api-view.js';
import { GRACE_CHOICES, apiBody, deliveryBody } from './api-view.js';
import { EMPTY_FORM } from './billing-view.js';
import { pageParam } from './money-view.js';

// API & callbacks: the API key (masked; revealed on confirmation, each reveal audited; rotated
// with a grace period, the new key shown once), the callback URL and version (the organisation
// rules, with the SSRF guard of production mode), a test event, and the delivery log with every
// attempt and resend. Reveal needs key.reveal, rotation key.rotate, the rest callbacks.write.

const DELIVERIES_PER_PAGE = 20;

type ApiState = Partial<
  Pick<ApiData, 'shownKey' | 'keyForm' | 'callbackForm' | 'allowListForm'>
> & {
  readonly page?: number;
  readonly status?: number;
};

async function sendApi(
  deps: AppDeps,
  reply: FastifyReply,
  view: PortalView,
  state: ApiState,
): Promise<FastifyReply> {
  const org = view.organisation;
  const page = state.page ?? 1;
  const [key, deliveries, endpoint] = await Promise.all([
    readKeySummary(deps, org.id),
    listDeliveries(deps.store.db, org.id, { page, perPage: DELIVERIES_PER_PAGE }),
    readEndpointStatus(deps.store.db, org.id, deps.clock.now()),
  ]);
  const role = view.user.role;
  const data: ApiData = {
    key,
    ...(state.shownKey === undefined ? {} : { shownKey: state.shownKey }),
    callbackUrl: org.callbackUrl,
    callbackVersion: org.callbackVersion,
    ipAllowList: org.ipAllowList,
    deliveries: deliveries.deliveries,
    endpoint,
    total: deliveries.total,
    page,
    perPage: DELIVERIES_PER_PAGE,
    can: {
      reveal: can(role, 'key.reveal'),
      rotate: can(role, 'key.rotate'),
      callbacks: can(role, 'callbacks.write'),
    },
    csrf: csrfField(view),
    keyForm: state.keyForm ?? EMPTY_FORM,
    callbackForm: state.callbackForm ?? EMPTY_FORM,
    allowListForm: state.allowListForm ?? EMPTY_FORM,
  };
  const body = apiBody(data, { currency: org.currency, timeZone: view.user.timeZone });
  return sendPage(reply, view, {
    title: 'API & callbacks',
    current: 'api',
    body,
    ...(state.status === undefined ? {} : { status: state.status }),
  });
}

function orgDeps(deps: AppDeps, request: FastifyRequest): KeyChangeDeps {
  return {
    db: deps.store.db,
    clock: deps.clock,
    random: deps.random,
    cipher: deps.cipher,
    // A rotation or a settings change stops this instance serving the old key from memory at once.
    apiKeys: deps.apiKeys,
    ...(deps.checkCallbackUrl === undefined ? {} : { checkCallbackUrl: deps.checkCallbackUrl }),
    actor: auditActor(request),
  };
}

async function postReveal(deps: AppDeps, request: FastifyRequest, reply: FastifyReply) {
  const view = requirePermission(request, 'key.reveal');
  if (formValue(request.body, 'confirm') !== 'yes') {
    const error = 'tick the box to confirm you want to see the whole key';
    return sendApi(deps, reply, view, {
      keyForm: { values: {}, errors: { reveal: error } },
      status: 400,
    });
  }
  const key = await revealApiKey(deps, view.organisation.id, auditActor(request));
  return sendApi(deps, reply, view, { shownKey: { key, rotated: false } });
}

function graceSeconds(raw: string, reason: 'leak' | 'routine'): number {
  const choice = GRACE_CHOICES.find((c) => c.value === raw);
  if (choice === undefined) {
    throw badRequest(`grace must be one of ${GRACE_CHOICES.map((c) => c.label).join(', ')}`);
  }
  if (choice.seconds < 0) return reason === 'leak' ? 0 : 86_400;
  if (reason === 'leak' && choice.seconds > 0) {
    throw badRequest('a key that leaked must stop at once: choose no grace period');
  }
  return choice.seconds;
}

async function postRotate(deps: AppDeps, request: FastifyRequest, reply: FastifyReply) {
  const view = requirePermission(request, 'key.rotate');
  const fail = (field: string, message: string) =>
    sendApi(deps, reply, view, {
      keyForm: { values: {}, errors: { [field]: message } },
      status: 400,
    });
  if (formValue(request.body, 'confirmRotate') !== 'yes') {
    return fail('rotate', 'tick the box to confirm you want to replace the key');
  }
  const reason = formValue(request.body, 'reason');
  if (reason !== 'leak' && reason !== 'routine') {
    return fail('reason', 'choose why you are rotating the key');
  }
  let grace: number;
  try {
    grace = graceSeconds(formValue(request.body, 'grace'), reason);
  } catch (error) {
    if (error instanceof DomainError) return fail('grace', error.message);
    throw error;
  }
  const rotated = await rotateApiKey(orgDeps(deps, request), view.organisation.id, grace);
  return sendApi(deps, reply, view, {
    shownKey: {
      key: rotated.apiKey,
      rotated: true,
      ...(grace === 0 ? {} : { oldUntil: rotated.previousValidUntil }),
    },
  });
}

async function postCallback(deps: AppDeps, request: FastifyRequest, reply: FastifyReply) {
  const view = requirePermission(request, 'callbacks.write');
  const values = {
    callbackUrl: formValue(request.body, 'callbackUrl'),
    callbackVersion: formValue(request.body, 'callbackVersion'),
  };
  try {
    const org = await updateOrganisationSettings(
      orgDeps(deps, request),
      view.organisation.id,
      values,
      deps.checkCallbackUrl,
    );
    const where = org.callbackUrl === '' ? 'no callback URL' : org.callbackUrl;
    const message = `Callback settings saved: ${where}, version ${org.callbackVersion}.`;
    return redirectWithFlash(request, reply, '/portal/api', message);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const field = error.message.startsWith('callbackVersion') ? 'callbackVersion' : 'callbackUrl';
    return sendApi(deps, reply, view, {
      callbackForm: { values, errors: { [field]: error.message } },
      status: error.status,
    });
  }
}

async function postAllowList(deps: AppDeps, request: FastifyRequest, reply: FastifyReply) {
  // Who may manage the key may say where it is used from.
  const view = requirePermission(request, 'key.rotate');
  const text = formValue(request.body, 'ipAllowList');
  try {
    const org = await updateOrganisationSettings(orgDeps(deps, request), view.organisation.id, {
      ipAllowList: splitAllowList(text),
    });
    const message =
      org.ipAllowList.length === 0
        ? 'IP allow-list cleared: any address may use the API key.'
        : `IP allow-list saved: ${org.ipAllowList.join(', ')}.`;
    return redirectWithFlash(request, reply, '/portal/api', message);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return sendApi(deps, reply, view, {
      allowListForm: { values: { ipAllowList: text }, errors: { ipAllowList: error.message } },
      status: error.status,
    });
  }
}

async function postTestEvent(deps: AppDeps, request: FastifyRequest, reply: FastifyReply) {
  const view = requirePermission(request, 'callbacks.write');
  try {
    await sendTestEvent(deps, view.organisation.id, auditActor(request));
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return sendApi(deps, reply, view, {
      callbackForm: { values: {}, errors: { test: error.message } },
      status: error.status,
    });
  }
  const message = 'Test event queued: it appears in the delivery log below with each attempt.';
  return redirectWithFlash(request, reply, '/portal/api', message);
}

function idParam(request: FastifyRequest): string {
  return (request.params as { id?: string }).id ?? '';
}

export function registerApiPage(app: FastifyInstance, deps: AppDeps): void {
  app.get('/portal/api', async (request, reply) => {
    const view = requirePermission(request, 'read');
    const page = pageParam((request.query as Record<string, unknown> | undefined)?.['page']);
    return sendApi(deps, reply, view, { page });
  });
  app.post('/portal/api/key/reveal', (request, reply) => postReveal(deps, request, reply));
  app.post('/portal/api/key/rotate', (request, reply) => postRotate(deps, request, reply));
  app.post('/portal/api/callback', (request, reply) => postCallback(deps, request, reply));
  app.post('/portal/api/ip-allow-list', (request, reply) => postAllowList(deps, request, reply));
  app.post('/portal/api/callback/resume', async (request, reply) => {
    const view = requirePermission(request, 'callbacks.write');
    await resumeDeliveries(deps, view.organisation.id, auditActor(request));
    return redirectWithFlash(request, reply, '/portal/api', 'Deliveries resumed.');
  });
  app.post('/portal/api/test-event', (request, reply) => postTestEvent(deps, request, reply));
  app.get('/portal/api/deliveries/:id', async (request, reply) => {
    const view = requirePermission(request, 'read');
    const delivery = await getDelivery(deps.store.db, view.organisation.id, idParam(request));
    const body = deliveryBody(
      delivery,
      { currency: view.organisation.currency, timeZone: view.user.timeZone },
      { canResend: can(view.user.role, 'callbacks.write'), csrf: csrfField(view) },
    );
    return sendPage(reply, view, { title: `Delivery ${delivery.id}`, current: 'api', body });
  });
  app.post('/portal/api/deliveries/:id/resend', async (request, reply) => {
    const view = requirePermission(request, 'callbacks.write');
    const id = idParam(request);
    await resendFromPortal(deps, view.organisation.id, id, auditActor(request));
    return redirectWithFlash(
      request,
      reply,
      `/portal/api/deliveries/${id}`,
      'Delivery queued again.',
    );
  });
}
