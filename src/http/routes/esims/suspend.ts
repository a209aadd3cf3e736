import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { applySuspension, readSuspension } from '../../../domain/esims/esim-state.js';
import type { SuspensionResult } from '../../../domain/esims/esim-state.js';
import { runUseCase } from '../../../domain/runner/use-case-runner.js';
import type { Api } from '../../api.js';
import {
  IdempotencyHeaders,
  idempotencyConflict,
  idempotencyOf,
  replyWith,
} from '../../idempotency.js';
import { apiKeySecurity, headerOnlySecurity, standardErrors } from '../../schemas/common.js';
import { IccidParams } from './esim-view.js';

// POST and GET /esims/{iccid}/suspend (the live service's v2.5): suspend or unsuspend an eSIM,
// and read whether it is suspended.

export const SUSPENDED_STATUS = 'eSIM suspended successfully';
export const UNSUSPENDED_STATUS = 'eSIM unsuspended successfully';

const postSchema = {
  tags: ['eSIMs'],
  operationId: 'suspendEsim',
  summary: 'Suspend or unsuspend an eSIM',
  description:
    'suspend: true suspends the eSIM: the network serves it no data and delivers it no SMS ' +
    '(POST /esims/{iccid}/sms is a 400) until it is unsuspended; its bundles keep their ' +
    'validity clocks. suspend: false unsuspends it and usage resumes. Asking for the state the ' +
    'eSIM is already in changes nothing and answers the same. A deleted (deactivated) eSIM is a ' +
    '400 (code esim_deactivated). Accepts Idempotency-Key.',
  security: headerOnlySecurity,
  headers: IdempotencyHeaders,
  params: IccidParams,
  body: Type.Object(
    {
      suspend: Type.Boolean({
        description: 'true: suspend the eSIM; false: unsuspend it.',
      }),
    },
    { examples: [{ suspend: true }] },
  ),
  response: {
    201: Type.Object(
      {
        status: Type.String({
          description: `"${SUSPENDED_STATUS}" or "${UNSUSPENDED_STATUS}".`,
        }),
      },
      { description: 'The eSIM is in the state asked for.', example: { status: SUSPENDED_STATUS } },
    ),
    400: standardErrors[400],
    403: standardErrors[403],
    404: standardErrors[404],
    409: idempotencyConflict,
    500: standardErrors[500],
  },
};

const getSchema = {
  tags: ['eSIMs'],
  operationId: 'getEsimSuspension',
  summary: 'Whether an eSIM is suspended',
  description: 'suspended is true while the eSIM is suspended (POST /esims/{iccid}/suspend).',
  security: apiKeySecurity,
  params: IccidParams,
  response: {
    200: Type.Object(
      { suspended: Type.Boolean({ description: 'Whether the eSIM is suspended.' }) },
      { description: 'The suspension state.', example: { suspended: false } },
    ),
    400: standardErrors[400],
    403: standardErrors[403],
    404: standardErrors[404],
    500: standardErrors[500],
  },
};

const statusOf = (result: SuspensionResult) => ({
  status: result.state === 'suspended' ? SUSPENDED_STATUS : UNSUSPENDED_STATUS,
});

export function registerSuspendEsim(app: Api, deps: AppDeps): void {
  app.post('/esims/:iccid/suspend', { schema: postSchema }, async (request, reply) => {
    const input = {
      organisationId: request.organisation.id,
      iccid: request.params.iccid,
      suspend: request.body.suspend,
    };
    const outcome = await runUseCase(deps, applySuspension, input, {
      idempotency: idempotencyOf(request),
      present: statusOf,
    });
    // A first answer and its replay are both 201; a refusal sets its own status.
    reply.code(201);
    return replyWith(reply, outcome);
  });

  app.get('/esims/:iccid/suspend', { schema: getSchema }, async (request) => {
    const { suspended } = await readSuspension(
      deps.store.db,
      request.organisation.id,
      request.params.iccid,
    );
    return { suspended };
  });
}
