import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { MAX_REPEAT } from '../../../domain/esims/lifecycle/apply-from-inventory.js';
import type { Api } from '../../api.js';
import { IdempotencyHeaders } from '../../idempotency.js';
import { headerOnlySecurity } from '../../schemas/common.js';
import { APPLY_ERRORS, ApplyAnswer, answerApply } from './apply.js';
import { IccidParams, checkIccid } from './esim-view.js';

// POST /esims/{iccid}/bundles: the live service's older way to apply a bundle to a given eSIM,
// deprecated since v2.2 and still in its v2.4 and v2.5 documents. Served on v2.2 and later (a
// version's extra route) over the same apply as POST /esims/apply with `iccid`.

const schema = {
  tags: ['eSIMs'],
  operationId: 'applyBundleToEsim',
  summary: 'Apply a bundle from inventory to this eSIM (deprecated)',
  description:
    'Deprecated: use POST /esims/apply with iccid, which this route is the same as (the apply is ' +
    'recorded as an order, more than five bundles are applied in the background). Takes `repeat` ' +
    'units of the bundle from inventory and assigns them to the eSIM of the path. Accepts ' +
    'Idempotency-Key.',
  deprecated: true,
  security: headerOnlySecurity,
  headers: IdempotencyHeaders,
  params: IccidParams,
  body: Type.Object({
    name: Type.String({ minLength: 1, description: 'Bundle name (case-sensitive).' }),
    startTime: Type.Optional(
      Type.String({
        description:
          'Accepted for compatibility and ignored: every bundle of this service starts on first use.',
      }),
    ),
    repeat: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_REPEAT,
        default: 1,
        description: `Units to apply, 1 to ${MAX_REPEAT}; they queue one after another.`,
      }),
    ),
  }),
  response: { 200: ApplyAnswer, ...APPLY_ERRORS },
};

export function registerApplyBundleToEsim(app: Api, deps: AppDeps): void {
  app.post('/esims/:iccid/bundles', { schema }, async (request, reply) => {
    const iccid = checkIccid(request.params.iccid);
    const { name, repeat = 1 } = request.body;
    return answerApply(deps, request, reply, { name, iccid, repeat });
  });
}
