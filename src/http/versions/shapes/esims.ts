import { Type } from '@sinclair/typebox';
import type { TObject } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type {
  AssignmentBody,
  EsimBundleBody,
  EsimDetailBody,
} from '../../routes/esims/esim-view.js';
import { AssignmentSchema, EsimBundleSchema } from '../../routes/esims/esim-view.js';
import { reshaped } from './schema-tools.js';

// eSIMs on the later versions. v2.3: assignment states in lower case (bundleState), `limit` and
// `includeUsed` on the bundle list, lower-case states in the history. v2.4: `lapsed` for an
// assignment that expired without being used, history items {name, bundleName, date},
// firstInstalledDateTime in milliseconds since the epoch.

// --- bundle assignments

const STATE_V23 =
  'processing, queued, active, depleted, expired or revoked (lower case, as live writes them).';
const STATE_V24 =
  'processing, queued, active, depleted, expired, lapsed (expired without being used) or revoked.';

function assignmentWith(state: string): TObject {
  return reshaped(AssignmentSchema, { bundleState: Type.String({ description: state }) });
}

function bundleWith(state: string): TObject {
  return reshaped(EsimBundleSchema, {
    assignments: Type.Array(assignmentWith(state), { description: 'In the order assigned.' }),
  });
}

export const EsimBundleV23 = bundleWith(STATE_V23);
export const EsimBundleV24 = bundleWith(STATE_V24);
export const EsimBundlesV23 = Type.Object({ bundles: Type.Array(EsimBundleV23) });
export const EsimBundlesV24 = Type.Object({ bundles: Type.Array(EsimBundleV24) });

function stateV23(a: AssignmentBody): string {
  return a.bundleState.toLowerCase();
}

/** Expired before it ever started: live calls that Lapsed (v2.4). */
function stateV24(a: AssignmentBody): string {
  return a.bundleState === 'Expired' && a.startTime === '' ? 'lapsed' : stateV23(a);
}

const FINISHED = new Set(['Depleted', 'Expired', 'Revoked']);

export const BundleListQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 200,
      default: 15,
      description: 'At most this many assignments, the newest, 1 to 200 (default 15).',
    }),
  ),
  includeUsed: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'Also list finished assignments (depleted, expired, lapsed, revoked); v2.1 always did.',
    }),
  ),
});

type BundleQuery = { limit?: number; includeUsed?: boolean };

function bundleIn(version: (a: AssignmentBody) => string) {
  return (bundle: EsimBundleBody): EsimBundleBody => ({
    ...bundle,
    assignments: bundle.assignments.map((a) => ({ ...a, bundleState: version(a) })),
  });
}

/** The newest `limit` assignments (finished ones only with includeUsed), grouped as before. */
function bundleListIn(version: (a: AssignmentBody) => string) {
  const one = bundleIn(version);
  return (body: { bundles: EsimBundleBody[] }, request: FastifyRequest) => {
    const { limit = 15, includeUsed = false } = request.query as BundleQuery;
    const kept = body.bundles.flatMap((b) =>
      b.assignments
        .filter((a) => includeUsed || !FINISHED.has(a.bundleState))
        .map((a) => ({ bundle: b, a })),
    );
    kept.sort((x, y) => (x.a.assignmentDateTime < y.a.assignmentDateTime ? -1 : 1));
    const newest = new Set(kept.slice(-limit).map((k) => k.a));
    const bundles = body.bundles
      .map((b) => one({ ...b, assignments: b.assignments.filter((a) => newest.has(a)) }))
      .filter((b) => b.assignments.length > 0);
    return { bundles };
  };
}

export const bundleV23Answer = bundleIn(stateV23);
export const bundleV24Answer = bundleIn(stateV24);
export const bundleListV23Answer = bundleListIn(stateV23);
export const bundleListV24Answer = bundleListIn(stateV24);

// --- history

interface HistoryItem {
  name: string;
  bundle: string;
  date: string;
  bundleState: string;
  alertType: string;
}

export const HistoryV23 = Type.Array(
  Type.Object({
    name: Type.String({ description: 'The event, e.g. Bundle Applied, eSIM Installed.' }),
    bundle: Type.String({ description: 'Bundle name the event concerns; empty when none.' }),
    date: Type.String({ description: 'When it happened, RFC 3339 UTC.' }),
    bundleState: Type.String({ description: `State after the event: ${STATE_V23}` }),
    alertType: Type.String({ description: 'For alerts, the alert type; empty otherwise.' }),
  }),
);

export const HistoryV24 = Type.Array(
  Type.Object({
    name: Type.String({ description: 'The event, e.g. Bundle Applied, eSIM Installed.' }),
    bundleName: Type.String({ description: 'Bundle name the event concerns; empty when none.' }),
    date: Type.String({ description: 'When it happened, RFC 3339 UTC.' }),
  }),
);

export const historyV23Answer = (items: HistoryItem[]): HistoryItem[] =>
  items.map((i) => ({ ...i, bundleState: i.bundleState.toLowerCase() }));

export const historyV24Answer = (items: HistoryItem[]) =>
  items.map((i) => ({ name: i.name, bundleName: i.bundle, date: i.date }));

// --- details

/** v2.4: firstInstalledDateTime in milliseconds since the epoch; 0 when never installed. */
export function esimV24Answer(body: EsimDetailBody): Record<string, unknown> {
  const at = body.firstInstalledDateTime;
  return { ...body, firstInstalledDateTime: at === '' ? 0 : Date.parse(at) };
}

export function esimV24Schema(shared: TObject): TObject {
  return reshaped(shared, {
    firstInstalledDateTime: Type.Integer({
      description:
        'When the profile was first installed, milliseconds since the epoch; 0 when never.',
    }),
  });
}

// --- PUT /esims

/**
 * A generated v2.4 client sends `iccid` and `customerRef` in the query with an empty JSON body
 * (`{}`): the query's fields become the body.
 */
export function updateFromQuery(request: FastifyRequest): void {
  const body = request.body as Record<string, unknown> | undefined | null;
  if (body !== undefined && body !== null && Object.keys(body).length > 0) return;
  const query = request.query as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  if (query['iccid'] !== undefined) fields['iccid'] = query['iccid'];
  if (query['customerRef'] !== undefined) fields['customerRef'] = query['customerRef'];
  Object.assign(request, { body: fields });
}
