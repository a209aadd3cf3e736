import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { checkCompatibility } from '../../../domain/esims/esim-state.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { present, presented } from '../../versions/presenter.js';
import { IccidParams } from './esim-view.js';

// GET /esims/{iccid}/compatible/{bundle} (the live service's v2.2 pages answer {message}; v2.4
// and later {compatible}: each version's presenter, docs/versions.md).

/** v2.2 and v2.3's answer (versions/presenters/esim-state.ts). */
export const CompatibleAnswer = Type.Object(
  {
    message: Type.String({
      description:
        '"eSIM <iccid> is compatible with bundle <name>" or "eSIM <iccid> is not compatible with bundle <name>".',
    }),
  },
  {
    description: 'The compatibility result.',
    example: {
      message: 'eSIM 8944000000000000003 is compatible with bundle esim_1GB_7D_GB_V2',
    },
  },
);

const schema = {
  tags: ['eSIMs'],
  operationId: 'checkEsimCompatibility',
  summary: 'Check that an eSIM is compatible with a bundle',
  description:
    'Whether the bundle can be applied to the eSIM: the eSIM is still on the account (not ' +
    'deleted) and the bundle is one the organisation may apply (of its groups, or held in its ' +
    'inventory). An unknown bundle is not compatible. An eSIM that is unknown or another ' +
    'organisation\u2019s is a 404.',
  security: apiKeySecurity,
  params: Type.Composite([
    IccidParams,
    Type.Object({ bundle: Type.String({ description: 'Bundle name (case-sensitive).' }) }),
  ]),
  response: {
    200: presented(CompatibleAnswer),
    400: standardErrors[400],
    403: standardErrors[403],
    404: standardErrors[404],
    500: standardErrors[500],
  },
};

export function registerCheckCompatibility(app: Api, deps: AppDeps): void {
  app.get('/esims/:iccid/compatible/:bundle', { schema }, async (request) => {
    const { iccid, bundle } = request.params;
    const compatible = await checkCompatibility(deps.store.db, request.organisation, iccid, bundle);
    return present(request, 'checkEsimCompatibility', { iccid, bundle, compatible });
  });
}
