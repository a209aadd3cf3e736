import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { notFound } from '../../../domain/errors.js';
import {
  bundleDescriptions,
  listAssignmentsOfEsim,
} from '../../../store/repositories/assignment-repository.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { EsimBundleSchema, IccidParams, groupByBundle, loadOwnedEsim } from './esim-view.js';

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
  app.get('/esims/:iccid/bundles', { schema: listSchema }, async (request) => {
    const esim = await loadOwnedEsim(deps, request.organisation.id, request.params.iccid);
    const rows = await listAssignmentsOfEsim(deps.store.db, esim.iccid);
    const descriptions = await bundleDescriptions(
      deps.store.db,
      rows.map((r) => r.bundle_name),
    );
    return { bundles: groupByBundle(rows, descriptions) };
  });

  app.get('/esims/:iccid/bundles/:name', { schema: oneSchema }, async (request) => {
    const esim = await loadOwnedEsim(deps, request.organisation.id, request.params.iccid);
    const name = request.params.name;
    const rows = await listAssignmentsOfEsim(deps.store.db, esim.iccid, name);
    const [bundle] = groupByBundle(rows, await bundleDescriptions(deps.store.db, [name]));
    if (bundle === undefined)
      throw notFound(`bundle ${name} was never assigned to eSIM ${esim.iccid}`);
    return bundle;
  });
}
