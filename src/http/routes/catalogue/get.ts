import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { catalogueItem } from '../../../domain/catalogue/catalogue-view.js';
import { notFound } from '../../../domain/errors/error-codes.js';
import { findBundleByName } from '../../../domain/catalogue/catalogue-reads.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { present, presented } from '../../versions/presenter.js';
import { BundleSchema } from './bundle-schema.js';

const Params = Type.Object({
  name: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'Bundle name as in the catalogue, case-sensitive, e.g. esim_1GB_7D_GB_V2.',
  }),
});

/** v2.1's answer (versions/presenters/catalogue.ts). */
export const BundleAnswer = { ...BundleSchema, description: 'The bundle.' };

const schema = {
  tags: ['Catalogue'],
  operationId: 'getCatalogueBundle',
  summary: 'Get one bundle of the catalogue by name',
  description: 'A bundle outside the organisation groups is answered like an unknown one (404).',
  security: apiKeySecurity,
  params: Params,
  response: {
    200: presented(BundleAnswer),
    400: standardErrors[400],
    403: standardErrors[403],
    404: standardErrors[404],
    500: standardErrors[500],
  },
};

export function registerGetCatalogueBundle(app: Api, deps: AppDeps): void {
  app.get('/catalogue/bundle/:name', { schema }, async (request) => {
    const { name } = request.params;
    const { groups } = request.organisation;
    const bundle = await findBundleByName(deps.store.db, name);
    if (bundle === undefined || !bundle.groups.some((g) => groups.includes(g))) {
      throw notFound(`bundle ${name} not found`);
    }
    const currency = request.organisation.currency;
    return present(request, 'getCatalogueBundle', { result: catalogueItem(bundle), currency });
  });
}
