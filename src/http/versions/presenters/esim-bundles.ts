import { Type } from '@sinclair/typebox';
import type { Static, TObject } from '@sinclair/typebox';
import type { Assignment } from '../../../domain/esims/lifecycle/assignment.js';
import { EsimBundlesAnswer } from '../../routes/esims/bundles.js';
import { AssignmentSchema, EsimBundleSchema } from '../../routes/esims/esim-view.js';
import { HistoryAnswer } from '../../routes/esims/history.js';
import type { Presenter } from '../presenter.js';
import { presenter } from '../presenter.js';
import type { EsimBundleRead, HistoryItem } from '../results.js';
import { reshaped } from '../shapes/schema-tools.js';

// The bundles of an eSIM and its history. v2.1: states as the domain names them (Queued).
// v2.3: lower-case states, on the assignments and in the history. v2.4: `lapsed` for an
// assignment that expired without being used; history items {name, bundleName, date}.
// v2.5: `allowances[]` on each assignment.

type AssignmentV21 = Static<typeof AssignmentSchema>;

function assignmentV21(a: Assignment): AssignmentV21 {
  return {
    id: a.id,
    reference: a.reference,
    assignmentReference: a.reference,
    callTypeGroup: 'data',
    bundleState: a.state,
    initialQuantity: a.initialBytes,
    remainingQuantity: a.remainingBytes,
    usedQuantity: a.usedBytes,
    unlimited: a.unlimited,
    assignmentDateTime: a.createdAt,
    startTime: a.startTime ?? '',
    endTime: a.endTime ?? '',
    validUntil: a.validUntil,
  };
}

const stateV23 = (a: Assignment): string => a.state.toLowerCase();

/** Expired before it ever started: live calls that Lapsed (v2.4). */
const stateV24 = (a: Assignment): string =>
  a.state === 'Expired' && a.startTime === null ? 'lapsed' : stateV23(a);

const STATE_V23 =
  'processing, queued, active, depleted, expired or revoked (lower case, as live writes them).';
const STATE_V24 =
  'processing, queued, active, depleted, expired, lapsed (expired without being used) or revoked.';

const Allowance = Type.Object({
  type: Type.String({ description: 'DATA: every bundle of this service carries data only.' }),
  service: Type.String({ description: 'STANDARD.' }),
  description: Type.String({ description: 'What the allowance is, in words.' }),
  initialAmount: Type.Integer({ description: 'At the start, in `unit`; -1 when unlimited.' }),
  remainingAmount: Type.Integer({ description: 'Left, in `unit`; -1 when unlimited.' }),
  unit: Type.String({ description: 'BYTES.' }),
  unlimited: Type.Boolean(),
});

function allowancesOf(a: Assignment): Static<typeof Allowance>[] {
  return [
    {
      type: 'DATA',
      service: 'STANDARD',
      description: a.unlimited ? 'Unlimited data' : 'Data',
      initialAmount: a.initialBytes,
      remainingAmount: a.remainingBytes,
      unit: 'BYTES',
      unlimited: a.unlimited,
    },
  ];
}

/** A version's assignment: its schema and its body. */
interface AssignmentShape<A extends TObject> {
  readonly schema: A;
  readonly body: (a: Assignment) => Static<A>;
}

const withState = (description: string) => ({
  bundleState: Type.String({ description }),
});

const AssignmentV23 = reshaped(AssignmentSchema, withState(STATE_V23));
const AssignmentV24 = reshaped(AssignmentSchema, withState(STATE_V24));
const AssignmentV25 = reshaped(AssignmentV24, {
  allowances: Type.Array(Allowance, {
    description: 'What the assignment gives: one DATA allowance, in bytes (as the quantities).',
  }),
});

const V21: AssignmentShape<typeof AssignmentSchema> = {
  schema: AssignmentSchema,
  body: assignmentV21,
};
const V23: AssignmentShape<typeof AssignmentV23> = {
  schema: AssignmentV23,
  body: (a) => ({ ...assignmentV21(a), bundleState: stateV23(a) }),
};
const V24: AssignmentShape<typeof AssignmentV24> = {
  schema: AssignmentV24,
  body: (a) => ({ ...assignmentV21(a), bundleState: stateV24(a) }),
};
const V25: AssignmentShape<typeof AssignmentV25> = {
  schema: AssignmentV25,
  body: (a) => ({ ...V24.body(a), allowances: allowancesOf(a) }),
};

export interface BundlePresenters {
  readonly listEsimBundles: Presenter<readonly EsimBundleRead[]>;
  readonly getEsimBundle: Presenter<EsimBundleRead>;
}

function bundlePresenters<A extends TObject>(
  shape: AssignmentShape<A>,
  schemas?: { one: TObject; list: TObject },
): BundlePresenters {
  const one =
    schemas?.one ??
    reshaped(EsimBundleSchema, {
      assignments: Type.Array(shape.schema, { description: 'In the order assigned.' }),
    });
  const list = schemas?.list ?? Type.Object({ bundles: Type.Array(one) });
  const bundle = (read: EsimBundleRead) => ({
    name: read.name,
    description: read.description,
    assignments: read.assignments.map(shape.body),
  });
  return {
    listEsimBundles: presenter(list, (reads: readonly EsimBundleRead[]) => ({
      bundles: reads.map(bundle),
    })),
    getEsimBundle: presenter(one, bundle),
  };
}

export const BUNDLES_V21 = bundlePresenters(V21, {
  one: EsimBundleSchema,
  list: EsimBundlesAnswer,
});
export const BUNDLES_V23 = bundlePresenters(V23);
export const BUNDLES_V24 = bundlePresenters(V24);
export const BUNDLES_V25 = bundlePresenters(V25);

// --- history

export const HISTORY_V21 = presenter(HistoryAnswer, (items: readonly HistoryItem[]) =>
  items.map((i) => ({
    name: i.name,
    bundle: i.bundle,
    date: i.at,
    bundleState: i.bundleState,
    alertType: i.alertType,
  })),
);

const HistoryV23 = Type.Array(
  Type.Object({
    name: Type.String({ description: 'The event, e.g. Bundle Applied, eSIM Installed.' }),
    bundle: Type.String({ description: 'Bundle name the event concerns; empty when none.' }),
    date: Type.String({ description: 'When it happened, RFC 3339 UTC.' }),
    bundleState: Type.String({ description: `State after the event: ${STATE_V23}` }),
    alertType: Type.String({ description: 'For alerts, the alert type; empty otherwise.' }),
  }),
);

export const HISTORY_V23 = presenter(HistoryV23, (items: readonly HistoryItem[]) =>
  items.map((i) => ({
    name: i.name,
    bundle: i.bundle,
    date: i.at,
    bundleState: i.bundleState.toLowerCase(),
    alertType: i.alertType,
  })),
);

const HistoryV24 = Type.Array(
  Type.Object({
    name: Type.String({ description: 'The event, e.g. Bundle Applied, eSIM Installed.' }),
    bundleName: Type.String({ description: 'Bundle name the event concerns; empty when none.' }),
    date: Type.String({ description: 'When it happened, RFC 3339 UTC.' }),
  }),
);

export const HISTORY_V24 = presenter(HistoryV24, (items: readonly HistoryItem[]) =>
  items.map((i) => ({ name: i.name, bundleName: i.bundle, date: i.at })),
);
