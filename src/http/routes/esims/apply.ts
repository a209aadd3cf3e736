import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { MAX_REPEAT } from '../../../domain/esims/lifecycle/apply-from-inventory.js';
import type { AppliedBundle } from '../../../domain/esims/apply-bundle.js';
import { applyBundle } from '../../../domain/esims/apply-bundle.js';
import { runUseCase } from '../../../domain/runner/use-case-runner.js';
import type { Api } from '../../api.js';
import {
  IdempotencyHeaders,
  idempotencyConflict,
  idempotencyOf,
  replyWith,
} from '../../idempotency.js';
import { headerOnlySecurity, standardErrors } from '../../schemas/common.js';

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

const appliedBody = (applied: AppliedBundle) => ({
  esims: applied.assignments.map((a) => ({
    iccid: applied.esim.iccid,
    matchingId: applied.esim.matching_id,
    smdpAddress: applied.esim.smdp_address,
    status: 'Successfully Assigned',
    bundle: a.bundle_name,
    assignmentId: a.id,
    bundleState: a.state,
  })),
  applyReference: applied.reference,
});

export function registerApplyBundle(app: Api, deps: AppDeps): void {
  app.post('/esims/apply', { schema }, async (request, reply) => {
    const { name, iccid, repeat = 1 } = request.body;
    const input = {
      organisationId: request.organisation.id,
      groups: request.organisation.groups,
      bundleName: name,
      iccid,
      repeat,
    };
    const outcome = await runUseCase(deps, applyBundle, input, {
      idempotency: idempotencyOf(request),
      present: appliedBody,
    });
    return replyWith(reply, outcome);
  });
}
