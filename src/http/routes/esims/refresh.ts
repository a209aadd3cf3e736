import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { refreshEsim } from '../../../domain/esims/esim-actions.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { IccidParams, loadOwnedEsim } from './esim-view.js';

export const REFRESH_STATUS = 'Successfully refreshed SIM';

const schema = {
  tags: ['eSIMs'],
  operationId: 'refreshEsim',
  summary: 'Refresh the network registration of an eSIM',
  description:
    'Troubleshooting: the network cancels the eSIM\u2019s location and the device registers ' +
    'again, which briefly disconnects it. The simulated network re-registers at once on the same ' +
    'network (lastSeen of GET /esims/{iccid}/location moves to now). The eSIM history gains an ' +
    '"eSIM Refreshed" entry. A GET, as on the live service.',
  security: apiKeySecurity,
  params: IccidParams,
  response: {
    200: Type.Object(
      { status: Type.String({ description: `"${REFRESH_STATUS}".` }) },
      {
        description: 'The refresh was sent to the network.',
      },
    ),
    400: standardErrors[400],
    403: standardErrors[403],
    404: standardErrors[404],
    500: standardErrors[500],
  },
};

export function registerRefreshEsim(app: Api, deps: AppDeps): void {
  app.get('/esims/:iccid/refresh', { schema }, async (request) => {
    const esim = await loadOwnedEsim(deps, request.organisation.id, request.params.iccid);
    await refreshEsim(deps, esim.iccid);
    return { status: REFRESH_STATUS };
  });
}
