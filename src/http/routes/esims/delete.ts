import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { deleteEsim } from '../../../domain/esims/esim-state.js';
import type { Api } from '../../api.js';
import { headerOnlySecurity, standardErrors } from '../../schemas/common.js';
import { IccidParams } from './esim-view.js';

// DELETE /esims/{iccid} (the live service's v2.5): deletes an eSIM from the account.

export const DELETED_STATUS = 'eSIM deleted successfully';

const schema = {
  tags: ['eSIMs'],
  operationId: 'deleteEsim',
  summary: 'Delete an eSIM',
  description:
    'Revokes every bundle on the eSIM without refund (Processing, Queued and Active alike) and ' +
    'removes the eSIM from the account, for good: its state becomes deactivated and its ' +
    'profileStatus Deactivated, it leaves GET /esims of every version, its install data by ' +
    'reference answers 410, and applying a bundle, refreshing or sending an SMS is a 400 ' +
    '(code esim_deactivated). GET /esims/{iccid} still answers, showing it deactivated. ' +
    'Deleting it again is a 400.',
  security: headerOnlySecurity,
  params: IccidParams,
  response: {
    200: Type.Object(
      { status: Type.String({ description: `"${DELETED_STATUS}".` }) },
      { description: 'The eSIM was deleted.', example: { status: DELETED_STATUS } },
    ),
    400: standardErrors[400],
    403: standardErrors[403],
    404: standardErrors[404],
    500: standardErrors[500],
  },
};

export function registerDeleteEsim(app: Api, deps: AppDeps): void {
  app.delete('/esims/:iccid', { schema }, async (request) => {
    await deleteEsim(deps, {
      organisationId: request.organisation.id,
      iccid: request.params.iccid,
    });
    return { status: DELETED_STATUS };
  });
}
