import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { revokeByName } from '../../../domain/esims/revoke-bundle.js';
import type { Api } from '../../api.js';
import { headerOnlySecurity, standardErrors } from '../../schemas/common.js';
import { present, presented } from '../../versions/presenter.js';
import { IccidParams } from './esim-view.js';
import { RevokeQuery, RevokeResult, refundOptions } from './revoke.js';

/** v2.1's answer (versions/presenters/esim-state.ts). */
export const RevokeByNameAnswer = Type.Object(RevokeResult.properties, {
  description: 'What the revoke did (transaction) or would do (validate).',
});

const schema = {
  tags: ['eSIMs'],
  operationId: 'revokeBundleByName',
  summary: 'Revoke the oldest unused assignment of a bundle',
  description:
    'Revokes the oldest assignment of the named bundle on the eSIM that has not started ' +
    '(Processing or Queued), as the live service does, and refunds its unit to inventory. ' +
    'type=validate reports what would happen and changes nothing. When every assignment of the ' +
    'bundle has started or ended, this is a 400 (code no_unused_assignment): revoke a started one ' +
    'by id with DELETE /esims/{iccid}/bundles/{name}/assignments/{assignmentId}. A bundle never ' +
    'assigned to the eSIM, or an eSIM that is unknown or another organisation\u2019s, is a 404.',
  security: headerOnlySecurity,
  params: Type.Composite([
    IccidParams,
    Type.Object({
      name: Type.String({ description: 'Bundle name as in the catalogue (case-sensitive).' }),
    }),
  ]),
  querystring: RevokeQuery,
  response: {
    200: presented(RevokeByNameAnswer),
    400: standardErrors[400],
    403: standardErrors[403],
    404: standardErrors[404],
    500: standardErrors[500],
  },
};

export function registerRevokeBundleByName(app: Api, deps: AppDeps): void {
  app.delete('/esims/:iccid/bundles/:name', { schema }, async (request) => {
    const result = await revokeByName(deps, {
      organisationId: request.organisation.id,
      iccid: request.params.iccid,
      name: request.params.name,
      type: request.query.type ?? 'transaction',
      // The versions that offer it (v2.4 and later) add these to the query.
      ...refundOptions(request, 'refundToBalanceByName'),
    });
    const currency = request.organisation.currency;
    return present(request, 'revokeBundleByName', { result, currency });
  });
}
