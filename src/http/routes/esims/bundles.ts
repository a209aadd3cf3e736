import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { notFound } from '../../../domain/errors/error-codes.js';
import type { EsimAssignments } from '../../../store/repositories/assignment-repository.js';
import { listEsimAssignments } from '../../../store/repositories/assignment-repository.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import {
  EsimBundleSchema,
  IccidParams,
  checkIccid,
  esimNotFound,
  groupByBundle,
} from './esim-view.js';

const listSchema = {
  tags: ['eSIMs'],
  operationId: 'listEsimBundles',
  summary: 'List the bundles of an eSIM with their assignments',
  description:
    'Every bundle ever assigned to the eSIM, in the order first assigned, each with its ' +
    'assignments (id, reference, state, data in bytes, start and end time). Includes finished ' +
    '(Depleted, Expired, Revoked) assignments.',
  security: apiKeySecurity,
  params: IccidParams,
  response: {
    200: Type.Object({ bundles: Type.Array(EsimBundleSchema) }),
    400: standardErrors[400],
    403: standardErrors[403],
    404: standardErrors[404],
    500: standardErrors[500],
  },
};

const oneSchema = {
  tags: ['eSIMs'],
  operationId: 'getEsimBundle',
  summary: 'Get one bundle of an eSIM with its assignments',
  description: 'A bundle never assigned to this eSIM is a 404.',
  security: apiKeySecurity,
  params: Type.Composite([
    IccidParams,
    Type.Object({
      name: Type.String({ description: 'Bundle name as in the catalogue (case-sensitive).' }),
    }),
  ]),
  response: {
    200: EsimBundleSchema,
    400: standardErrors[400],
    403: standardErrors[403],
    404: standardErrors[404],
    500: standardErrors[500],
  },
};

export function registerEsimBundles(app: Api, deps: AppDeps): void {
  const { db } = deps.store;
  // One statement each: the eSIM's ownership, its assignments and their bundles' descriptions.
  const load = async (organisationId: string, raw: string): Promise<EsimAssignments> => {
    const iccid = checkIccid(raw);
    const found = await listEsimAssignments(db, organisationId, iccid);
    if (found === undefined) throw esimNotFound(iccid);
    return found;
  };

  app.get('/esims/:iccid/bundles', { schema: listSchema }, async (request) => {
    const { assignments, descriptions } = await load(request.organisation.id, request.params.iccid);
    return { bundles: groupByBundle(assignments, descriptions) };
  });

  app.get('/esims/:iccid/bundles/:name', { schema: oneSchema }, async (request) => {
    const { iccid, name } = request.params;
    const { assignments, descriptions } = await load(request.organisation.id, iccid);
    const [bundle] = groupByBundle(
      assignments.filter((a) => a.bundleName === name),
      descriptions,
    );
    if (bundle === undefined) throw notFound(`bundle ${name} was never assigned to eSIM ${iccid}`);
    return bundle;
  });
}
