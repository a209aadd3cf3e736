import { Type } from '@sinclair/typebox';
import type { TArray, TObject } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AssignmentBody, EsimBundleBody } from '../../routes/esims/esim-view.js';
import type { RouteWire } from '../wire.js';
import { esimV25Answer, esimV25Schema } from './esim-state.js';
import {
  EsimBundleV24,
  bundleListV24Answer,
  bundleV24Answer,
  esimV24Answer,
  esimV24Schema,
} from './esims.js';
import { reshaped } from './schema-tools.js';

// v2.5's eSIM detail and bundle assignments: `msisdn`, `profileName`, the Android install link
// beside Apple's (additionalFields=installUrl gives both), and `allowances[]` on each assignment.
// (`state` and `brandingId` are in esim-state.ts.)

/** Every eSIM of this service is issued with one network profile, which takes every bundle. */
export const PROFILE_NAME = 'default';

const ADDITIONAL_FIELDS = Type.Object({
  additionalFields: Type.Optional(
    Type.String({
      description:
        'Comma-separated extra fields: appleInstallUrl, androidInstallUrl, or installUrl for both. Other names are ignored.',
    }),
  ),
});

function esimDetailSchema(shared: TObject): TObject {
  return reshaped(esimV25Schema(esimV24Schema(shared)), {
    msisdn: Type.String({
      description:
        'The eSIM phone number (E.164 digits, no +), given by the network for SMS; empty when it has none.',
    }),
    profileName: Type.String({
      description: `The network profile the eSIM was issued with: "${PROFILE_NAME}", the one profile of this service, which takes every bundle.`,
    }),
    androidInstallUrl: Type.Optional(
      Type.String({
        description:
          'With additionalFields=androidInstallUrl or installUrl: https://esimsetup.android.com/esim_qrcode_provisioning?carddata= followed by the URL-encoded activation code LPA:1$<smdpAddress>$<matchingId>.',
      }),
    ),
  });
}

const esimV25 = esimV25Answer(esimV24Answer);

function esimDetailAnswer(body: { msisdn?: string; state?: string }): Record<string, unknown> {
  return { ...esimV25(body), msisdn: body.msisdn ?? '', profileName: PROFILE_NAME };
}

// --- allowances of an assignment

const Allowance = Type.Object({
  type: Type.String({ description: 'DATA: every bundle of this service carries data only.' }),
  service: Type.String({ description: 'STANDARD.' }),
  description: Type.String({ description: 'What the allowance is, in words.' }),
  initialAmount: Type.Integer({ description: 'At the start, in `unit`; -1 when unlimited.' }),
  remainingAmount: Type.Integer({ description: 'Left, in `unit`; -1 when unlimited.' }),
  unit: Type.String({ description: 'BYTES.' }),
  unlimited: Type.Boolean(),
});

const assignmentV25 = reshaped((EsimBundleV24.properties['assignments'] as TArray<TObject>).items, {
  allowances: Type.Array(Allowance, {
    description: 'What the assignment gives: one DATA allowance, in bytes (as the quantities).',
  }),
});
const EsimBundleV25 = reshaped(EsimBundleV24, {
  assignments: Type.Array(assignmentV25, { description: 'In the order assigned.' }),
});
const EsimBundlesV25 = Type.Object({ bundles: Type.Array(EsimBundleV25) });

function allowancesOf(a: AssignmentBody) {
  return [
    {
      type: 'DATA',
      service: 'STANDARD',
      description: a.unlimited ? 'Unlimited data' : 'Data',
      initialAmount: a.initialQuantity,
      remainingAmount: a.remainingQuantity,
      unit: 'BYTES',
      unlimited: a.unlimited,
    },
  ];
}

const withAllowances = (bundle: EsimBundleBody): EsimBundleBody => ({
  ...bundle,
  assignments: bundle.assignments.map((a) => ({ ...a, allowances: allowancesOf(a) })),
});

/** The v2.5 differences of the eSIM detail and bundle routes, by operationId. */
export const ESIM_ROUTES_V25: Readonly<Record<string, RouteWire>> = {
  getEsim: {
    querystring: ADDITIONAL_FIELDS,
    response: esimDetailSchema,
    answer: esimDetailAnswer,
  },
  listEsimBundles: {
    response: EsimBundlesV25,
    answer: (body: { bundles: EsimBundleBody[] }, request: FastifyRequest) => ({
      bundles: bundleListV24Answer(body, request).bundles.map(withAllowances),
    }),
  },
  getEsimBundle: {
    response: EsimBundleV25,
    answer: (body: EsimBundleBody) => withAllowances(bundleV24Answer(body)),
  },
};
