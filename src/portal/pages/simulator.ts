import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps.js';
import { listDeliveries } from '../../domain/callbacks/deliveries.js';
import { listOrganisationEsims } from '../../domain/esims/esim-details.js';
import { DomainError } from '../../domain/errors/error-codes.js';
import type { ProfileStatus } from '../../domain/network/profile.js';
import {
  advanceSimulatedTime,
  attachOwnEsim,
  inspectDelivery,
  installOwnEsim,
  readOwnOutboxes,
  useDataOnOwnEsim,
} from '../../domain/simulator/console.js';
import { addFault, removeFaults } from '../../domain/simulator/simulator-control.js';
import { listFaults } from '../../domain/simulator/simulator-reads.js';
import { normaliseRoutePattern } from '../../domain/simulator/fault.js';
import type { PortalView } from '../context.js';
import { redirectWithFlash, requirePermission } from '../context.js';
import { can } from '../permissions.js';
import { sendPage } from '../layout.js';
import type { ConsoleSection } from './simulator-view.js';
import {
  callbackBody,
  callbacksBody,
  consoleBody,
  outboxBody,
  requestsBody,
} from './simulator-view.js';
import { formText } from './query-values.js';

// The simulator console (simulator mode only; plugin.ts does not register it otherwise, so in
// production every /portal/simulator path is the portal's 404). Every action calls the same
// domain functions as /_sim, limited to the signed-in organisation's eSIMs, outboxes and
// callbacks. Reading needs `read`; acting needs `simulator.write` (Admin, Developer).

const SHOWN = 50;
const UNIT_SECONDS = { minutes: 60, hours: 3600, days: 86_400 } as const;
const PROFILE_STATUSES: readonly ProfileStatus[] = ['Installed', 'Downloaded', 'Unavailable'];

type IdRequest = FastifyRequest<{ Params: { id: string } }>;

async function consolePage(
  deps: AppDeps,
  view: PortalView,
  reply: FastifyReply,
  refusal?: { section: ConsoleSection; error: DomainError; iccid?: string },
) {
  const [page, faults] = await Promise.all([
    listOrganisationEsims(deps.store.db, view.organisation.id, {
      search: '',
      offset: 0,
      limit: SHOWN,
    }),
    listFaults(deps.store.db),
  ]);
  const body = consoleBody(view, {
    iccids: page.esims.map((e) => e.iccid),
    faults,
    canWrite: can(view.user.role, 'simulator.write'),
    ...(refusal === undefined
      ? {}
      : {
          errors: { [refusal.section]: refusal.error.message },
          ...(refusal.iccid === undefined ? {} : { iccid: refusal.iccid }),
        }),
  });
  return sendPage(reply, view, {
    title: 'Simulator',
    current: 'simulator',
    body,
    status: refusal?.error.status ?? 200,
  });
}

/** Runs a console action: a refusal shows the console again with the message in its section. */
async function act(
  deps: AppDeps,
  view: PortalView,
  reply: FastifyReply,
  section: ConsoleSection,
  action: () => Promise<string>,
  iccid?: string,
) {
  try {
    const message = await action();
    return redirectWithFlash(reply.request, reply, '/portal/simulator', message);
  } catch (error) {
    if (!(error instanceof DomainError) || error.status >= 500) throw error;
    return consolePage(deps, view, reply, {
      section,
      error,
      ...(iccid === undefined ? {} : { iccid }),
    });
  }
}

function positiveNumber(raw: string, label: string, max: number): number {
  const value = Number(raw.trim());
  if (raw.trim() === '' || !Number.isFinite(value) || value <= 0 || value > max) {
    throw new DomainError(
      'bad_request',
      `${label}: enter a number more than 0 and at most ${max.toLocaleString('en-GB')}`,
    );
  }
  return value;
}

function optionalWhole(raw: string, label: string, min: number, max: number): number | null {
  if (raw.trim() === '') return null;
  const value = Number(raw.trim());
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new DomainError(
      'bad_request',
      `${label}: enter a whole number from ${min} to ${max.toLocaleString('en-GB')}`,
    );
  }
  return value;
}

export function registerSimulatorPages(app: FastifyInstance, deps: AppDeps): void {
  app.get('/portal/simulator', async (request, reply) =>
    consolePage(deps, requirePermission(request, 'read'), reply),
  );

  app.post('/portal/simulator/clock', async (request, reply) => {
    const view = requirePermission(request, 'simulator.write');
    return act(deps, view, reply, 'clock', async () => {
      const unit = formText(request, 'unit', 20);
      const seconds = UNIT_SECONDS[unit as keyof typeof UNIT_SECONDS];
      if (seconds === undefined)
        throw new DomainError('bad_request', 'Unit: choose minutes, hours or days');
      const amount = positiveNumber(formText(request, 'amount', 20), 'Advance by', 3660);
      const run = await advanceSimulatedTime(deps, amount * seconds);
      const units = amount === 1 ? unit.slice(0, -1) : unit;
      return `The clock moved ${amount} ${units}: ${run.expired} bundle(s) expired, ${run.provisioned} became ready.`;
    });
  });

  app.post('/portal/simulator/esim', async (request, reply) => {
    const view = requirePermission(request, 'simulator.write');
    const iccid = formText(request, 'iccid', 40).replace(/\s+/g, '');
    const org = view.organisation.id;
    return act(
      deps,
      view,
      reply,
      'esim',
      async () => {
        if (!/^\d{19}$/.test(iccid))
          throw new DomainError('bad_request', 'ICCID: enter the 19 digits of one of your eSIMs');
        const action = formText(request, 'action', 20);
        if (action === 'install') {
          const status = formText(request, 'status', 20) as ProfileStatus;
          if (!PROFILE_STATUSES.includes(status))
            throw new DomainError('bad_request', 'Profile status: choose one of the list');
          const done = await installOwnEsim(deps, org, iccid, status);
          return `eSIM ${iccid} is now ${done.profileStatus}.`;
        }
        if (action === 'attach') {
          const country = formText(request, 'country', 10).trim().toUpperCase();
          if (!/^[A-Z]{2}$/.test(country))
            throw new DomainError('bad_request', 'Country: enter two letters, e.g. FR');
          const done = await attachOwnEsim(deps, org, iccid, country);
          return `eSIM ${iccid} is attached to ${done.networkName} in ${done.country}.`;
        }
        if (action === 'usage') {
          const mb = positiveNumber(formText(request, 'mb', 20), 'Data (MB)', 1_000_000);
          const done = await useDataOnOwnEsim(
            deps,
            org,
            iccid,
            Math.max(1, Math.round(mb * 1_000_000)),
          );
          const served = `${Math.round(done.consumedBytes / 1000) / 1000} MB used on eSIM ${iccid}`;
          return done.reason === ''
            ? `${served}.`
            : `${served}; the rest was not served: ${done.reason}.`;
        }
        throw new DomainError('bad_request', 'choose Install, Attach or move, or Use data');
      },
      iccid,
    );
  });

  app.post('/portal/simulator/faults', async (request, reply) => {
    const view = requirePermission(request, 'simulator.write');
    return act(deps, view, reply, 'faults', async () => {
      const route = formText(request, 'route', 300).trim();
      if (route === '')
        throw new DomainError('bad_request', 'Path: enter the path the fault applies to');
      const method = formText(request, 'method', 10) || '*';
      if (!/^(\*|[A-Z]+)$/.test(method))
        throw new DomainError('bad_request', 'Method: choose one of the list');
      const status = optionalWhole(formText(request, 'status', 10), 'Answer with status', 400, 599);
      const count = optionalWhole(
        formText(request, 'count', 10),
        'For the next (calls)',
        1,
        1_000_000,
      );
      if (status === null)
        throw new DomainError('bad_request', 'Answer with status: enter a status from 400 to 599');
      const fault = await addFault(deps, deps.simulator as NonNullable<AppDeps['simulator']>, {
        route: normaliseRoutePattern(route),
        method,
        status,
        count,
        probability: null,
        latencyMs: 0,
      });
      return `Fault added: ${fault.method === '*' ? 'any method' : fault.method} ${fault.route} answers ${status}.`;
    });
  });

  app.post('/portal/simulator/faults/remove', async (request, reply) => {
    const view = requirePermission(request, 'simulator.write');
    return act(deps, view, reply, 'faults', async () => {
      const removed = await removeFaults(deps, formText(request, 'id', 100));
      return removed === 0 ? 'That fault was already gone.' : 'Fault removed.';
    });
  });

  app.get('/portal/simulator/outbox', async (request, reply) => {
    const view = requirePermission(request, 'read');
    const { sms, mail } = await readOwnOutboxes(deps, view.organisation.id, SHOWN);
    return sendPage(reply, view, {
      title: 'Simulator: SMS and mail',
      current: 'simulator',
      body: outboxBody(view, sms, mail),
    });
  });

  app.get('/portal/simulator/callbacks', async (request, reply) => {
    const view = requirePermission(request, 'read');
    const page = await listDeliveries(deps.store.db, view.organisation.id, {
      page: 1,
      perPage: SHOWN,
    });
    return sendPage(reply, view, {
      title: 'Simulator: callbacks',
      current: 'simulator',
      body: callbacksBody(view, page.deliveries),
    });
  });

  app.get('/portal/simulator/callbacks/:id', async (request: IdRequest, reply) => {
    const view = requirePermission(request, 'read');
    const { delivery, requests } = await inspectDelivery(
      deps,
      view.organisation.id,
      request.params.id,
    );
    return sendPage(reply, view, {
      title: 'Simulator: a callback',
      current: 'simulator',
      body: callbackBody(view, delivery, requests),
    });
  });

  app.get('/portal/simulator/requests', async (request, reply) => {
    const view = requirePermission(request, 'read');
    const rows = (await deps.journal?.recent(view.organisation.id, SHOWN)) ?? [];
    return sendPage(reply, view, {
      title: 'Simulator: request journal',
      current: 'simulator',
      body: requestsBody(view, rows),
    });
  });
}
