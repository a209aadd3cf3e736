import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { DomainError, badRequest, notFound } from '../../../domain/errors.js';
import { STALE_ASSIGNMENT } from '../../../domain/lifecycle/transition.js';
import { listAssignmentsOfEsim } from '../../../store/repositories/assignment-repository.js';
import type { Api } from '../../api.js';
import { headerOnlySecurity, standardErrors } from '../../schemas/common.js';
import { IccidParams, loadOwnedEsim } from './esim-view.js';
import { RevokeQuery, RevokeResult, revokeOne } from './revoke.js';

const UNUSED = new Set(['Processing', 'Queued']);
const MAX_ATTEMPTS = 8;

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
    200: {
      ...RevokeResult,
      description: 'What the revoke did (transaction) or would do (validate).',
    },
    400: standardErrors[400],
    403: standardErrors[403],
    404: standardErrors[404],
    500: standardErrors[500],
  },
};

export function registerRevokeBundleByName(app: Api, deps: AppDeps): void {
  app.delete('/esims/:iccid/bundles/:name', { schema }, async (request) => {
    const esim = await loadOwnedEsim(deps, request.organisation.id, request.params.iccid);
    const { name } = request.params;
    const type = request.query.type ?? 'transaction';
    // Two revokes at once may pick the same assignment; the loser's conditional state change
    // fails as stale, and it moves on to the next unused one.
    for (let attempt = 1; ; attempt += 1) {
      const rows = await listAssignmentsOfEsim(deps.store.db, esim.iccid, name);
      if (rows.length === 0) {
        throw notFound(`bundle ${name} was never assigned to eSIM ${esim.iccid}`);
      }
      const oldest = rows.find((r) => UNUSED.has(r.state));
      if (oldest === undefined) {
        throw badRequest(
          `eSIM ${esim.iccid} has no unused (Processing or Queued) assignment of bundle ${name}; ` +
            'revoke a started one by id with DELETE /esims/{iccid}/bundles/{name}/assignments/{assignmentId}',
          'no_unused_assignment',
        );
      }
      try {
        return await revokeOne(deps, oldest, type);
      } catch (error) {
        const stale = error instanceof DomainError && error.code === STALE_ASSIGNMENT;
        if (!stale || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  });
}
