import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { badRequest } from '../../../domain/errors/error-codes.js';
import { numberEsim } from '../../../domain/network/msisdn.js';
import type { ProfileStatus } from '../../../domain/network/profile.js';
import type { AttachTarget } from '../../../domain/simulator/simulator.js';
import type { Api } from '../../api.js';
import { checkIccid } from '../esims/esim-view.js';
import { SimIccidParams, optionalBody, simErrors, simMarks, simulatorOf } from './sim-schema.js';

const installSchema = {
  ...simMarks,
  operationId: 'simInstallProfile',
  summary: 'Install the eSIM profile on a device',
  description:
    'The device downloads and installs the profile: profileStatus becomes Installed (or the status ' +
    'given), firstInstalledDateTime is set on the first install, and the eSIM history records it. ' +
    'Unavailable means the profile was deleted from the device.',
  params: SimIccidParams,
  body: Type.Object(
    {
      status: Type.Optional(
        Type.Unsafe<ProfileStatus>({
          type: 'string',
          enum: ['Downloaded', 'Installed', 'Unavailable'],
          default: 'Installed',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  response: {
    200: Type.Object({
      iccid: Type.String(),
      profileStatus: Type.String(),
      firstInstalledDateTime: Type.String(),
    }),
    ...simErrors,
  },
};

const attachSchema = {
  ...simMarks,
  operationId: 'simAttach',
  summary: 'Attach the eSIM to a mobile network',
  description:
    'Registers the eSIM on a real operator: give a country (an operational network of that country ' +
    'is chosen, reproducibly under SIM_SEED) or an exact mcc and mnc. The profile must be Installed. ' +
    'Sets the location and reports FirstAttachment/CountryChange to the callbacks.',
  params: SimIccidParams,
  body: Type.Object(
    {
      country: Type.Optional(Type.String({ description: 'ISO 3166-1 alpha-2, e.g. FR.' })),
      mcc: Type.Optional(Type.String({ pattern: '^[0-9]{3}$', description: 'e.g. 208.' })),
      mnc: Type.Optional(Type.String({ pattern: '^[0-9]{2,3}$', description: 'e.g. 01.' })),
    },
    { additionalProperties: false },
  ),
  response: {
    200: Type.Object({
      iccid: Type.String(),
      mobileNetworkCode: Type.String(),
      mcc: Type.String(),
      mnc: Type.String(),
      networkName: Type.String(),
      country: Type.String(),
      lastSeen: Type.String(),
    }),
    ...simErrors,
  },
};

const usageSchema = {
  ...simMarks,
  operationId: 'simUseData',
  summary: 'Use data on the eSIM',
  description:
    'The network reports data used where the eSIM is attached. The Active bundle serves it if it ' +
    'covers that country; with none Active the first Queued bundle covering it is activated. Data ' +
    'beyond what the bundle has left is not served (the next bundle takes over on the next use).',
  params: SimIccidParams,
  body: Type.Object(
    {
      bytes: Type.Integer({ minimum: 1, maximum: 1e15, description: 'Bytes used.' }),
    },
    { additionalProperties: false },
  ),
  response: {
    200: Type.Object({
      iccid: Type.String(),
      requestedBytes: Type.Integer(),
      consumedBytes: Type.Integer({ description: 'Bytes taken off a bundle.' }),
      unservedBytes: Type.Integer({ description: 'Bytes not served.' }),
      reason: Type.String({ description: 'Why some bytes were not served; empty when all were.' }),
      assignment: Type.Optional(
        Type.Object({
          id: Type.String(),
          name: Type.String(),
          state: Type.String(),
          remainingBytes: Type.Integer(),
          usedBytes: Type.Integer(),
        }),
      ),
      transitions: Type.Array(Type.String(), {
        description: 'State changes caused, e.g. "Queued -> Active".',
      }),
    }),
    ...simErrors,
  },
};

const msisdnSchema = {
  ...simMarks,
  operationId: 'simSetMsisdn',
  summary: 'Give the eSIM a phone number (MSISDN)',
  description:
    'Numbers the profile so it can receive SMS; the network numbers an eSIM by itself when it first ' +
    'attaches, so this is for a number of another country, given before that. The number carries ' +
    'the calling code of the given country, else of the country the eSIM is attached in, else GB. ' +
    'An eSIM that already has one keeps it (and it is answered).',
  params: SimIccidParams,
  body: Type.Object(
    { country: Type.Optional(Type.String({ description: 'ISO 3166-1 alpha-2.' })) },
    { additionalProperties: false },
  ),
  response: {
    200: Type.Object({
      iccid: Type.String(),
      msisdn: Type.String({ description: 'E.164 digits without +.' }),
    }),
    ...simErrors,
  },
};

export function registerSimEsims(app: Api, deps: AppDeps): void {
  app.post('/esims/:iccid/install', { schema: installSchema, ...optionalBody }, async (request) => {
    const iccid = checkIccid(request.params.iccid);
    return simulatorOf(deps).events.installProfile(iccid, request.body?.status ?? 'Installed');
  });

  app.post('/esims/:iccid/attach', { schema: attachSchema }, async (request) => {
    const iccid = checkIccid(request.params.iccid);
    const { country, mcc, mnc } = request.body;
    let target: AttachTarget;
    if (country !== undefined && mcc === undefined && mnc === undefined) target = { country };
    else if (country === undefined && mcc !== undefined && mnc !== undefined) target = { mcc, mnc };
    else throw badRequest('body must have either country, or both mcc and mnc');
    return simulatorOf(deps).events.attach(iccid, target);
  });

  app.post('/esims/:iccid/usage', { schema: usageSchema }, async (request) => {
    const iccid = checkIccid(request.params.iccid);
    return simulatorOf(deps).events.reportUsage(iccid, request.body.bytes);
  });

  app.post('/esims/:iccid/msisdn', { schema: msisdnSchema, ...optionalBody }, async (request) => {
    const iccid = checkIccid(request.params.iccid);
    const msisdn = await numberEsim(deps, iccid, request.body?.country);
    return { iccid, msisdn };
  });
}
