import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { MAX_REPEAT, applyFromInventory } from '../../../domain/lifecycle/apply.js';
import type { Api } from '../../api.js';
import { IdempotencyHeaders, idempotencyConflict, withIdempotency } from '../../idempotency.js';
import { headerOnlySecurity, standardErrors } from '../../schemas/common.js';
import { checkIccid } from './esim-view.js';

const schema = {
  tags: ['eSIMs'],
  operationId: 'applyBundle',
  summary: 'Apply a bundle from inventory to an eSIM',
  description:
    'Takes units of a bundle from the organisation inventory (oldest unexpired batch first) and ' +
    'assigns them to an eSIM the organisation owns, or to a newly issued eSIM when iccid is ' +
    'omitted. Each assignment starts in Processing and is Queued once provisioned. All or nothing: ' +
    'without enough units in inventory nothing changes (400, code insufficient_inventory). A ' +
    'bundle that does not exist and one outside the organisation groups that it never bought get ' +
    'the same 400 (code unknown_bundle). The applyReference works with ' +
    'GET /esims/assignments for install data. Accepts Idempotency-Key.',
  security: headerOnlySecurity,
  headers: IdempotencyHeaders,
  body: Type.Object(
    {
      name: Type.String({ minLength: 1, description: 'Bundle name (case-sensitive).' }),
      iccid: Type.Optional(
        Type.String({
          description:
            'eSIM to apply to (the organisation must own it; otherwise 404). Omitted: a new eSIM is issued.',
        }),
      ),
      repeat: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: MAX_REPEAT,
          default: 1,
          description: `Units to apply to that eSIM, 1 to ${MAX_REPEAT}; they queue one after another.`,
        }),
      ),
    },
    { additionalProperties: false },
  ),
  response: {
    200: Type.Object({
      esims: Type.Array(
        Type.Object({
          iccid: Type.String(),
          matchingId: Type.String(),
          smdpAddress: Type.String(),
          status: Type.String({ description: '"Successfully Assigned".' }),
          bundle: Type.String({ description: 'Bundle name.' }),
          assignmentId: Type.String({ description: 'Id of the assignment (for revoking it).' }),
          bundleState: Type.String({ description: 'State right after applying.' }),
        }),
        { description: 'One entry per unit applied.' },
      ),
      applyReference: Type.String({ description: 'Reference of this apply (a UUID).' }),
    }),
    400: standardErrors[400],
    403: standardErrors[403],
    404: standardErrors[404],
    409: idempotencyConflict,
    500: standardErrors[500],
  },
};

export function registerApplyBundle(app: Api, deps: AppDeps): void {
  app.post('/esims/apply', { schema }, (request, reply) =>
    withIdempotency(deps, request, reply, (idem) => {
      const { name, iccid, repeat = 1 } = request.body;
      if (iccid !== undefined) checkIccid(iccid, 'body field iccid');
      const reference = deps.random.uuid();
      return deps.store.db.transaction().execute(async (trx) => {
        const result = await applyFromInventory(trx, deps, {
          organisationId: request.organisation.id,
          bundleName: name,
          groups: request.organisation.groups,
          iccid,
          repeat,
          reference,
        });
        const body = {
          esims: result.assignments.map((a) => ({
            iccid: result.esim.iccid,
            matchingId: result.esim.matching_id,
            smdpAddress: result.esim.smdp_address,
            status: 'Successfully Assigned',
            bundle: a.bundle_name,
            assignmentId: a.id,
            bundleState: a.state,
          })),
          applyReference: reference,
        };
        await idem.complete(trx, 200, body);
        return body;
      });
    }),
  );
}
