import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { listOwnedHistory } from '../../../domain/esims/esim-reads.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { present, presented } from '../../versions/presenter.js';
import { IccidParams, checkIccid, esimNotFound } from './esim-view.js';

const MAX_ENTRIES = 1000;

const HistoryEntry = Type.Object({
  name: Type.String({
    description:
      'The event: Bundle Applied, Bundle Queued, Bundle Activated, Bundle Depleted, Bundle Expired, Bundle Revoked, eSIM Downloaded, eSIM Installed, eSIM Deleted, Utilisation Alert, eSIM Updated (PUT /esims), eSIM Refreshed (GET /esims/{iccid}/refresh).',
  }),
  bundle: Type.String({ description: 'Bundle name the event concerns; empty when none.' }),
  date: Type.String({ description: 'When it happened, RFC 3339 UTC.' }),
  bundleState: Type.String({
    description:
      'State of that bundle assignment after the event: Processing, Queued, Active, Depleted, Expired or Revoked; empty for an eSIM event with no bundle.',
  }),
  alertType: Type.String({
    description: 'For alerts, the callback alert type (e.g. Utilisation); empty otherwise.',
  }),
});

/** v2.1's answer (versions/presenters/esim-bundles.ts). */
export const HistoryAnswer = Type.Array(HistoryEntry);

const schema = {
  tags: ['eSIMs'],
  operationId: 'getEsimHistory',
  summary: 'Get the history of an eSIM',
  description: `Bundle and profile events of the eSIM, newest first (at most ${MAX_ENTRIES}).`,
  security: apiKeySecurity,
  params: IccidParams,
  response: {
    200: presented(HistoryAnswer),
    400: standardErrors[400],
    403: standardErrors[403],
    404: standardErrors[404],
    500: standardErrors[500],
  },
};

export function registerGetEsimHistory(app: Api, deps: AppDeps): void {
  app.get('/esims/:iccid/history', { schema }, async (request) => {
    const iccid = checkIccid(request.params.iccid);
    const { db } = deps.store;
    // One statement: the eSIM's ownership and its newest entries.
    const entries = await listOwnedHistory(db, request.organisation.id, iccid, MAX_ENTRIES);
    if (entries === undefined) throw esimNotFound(iccid);
    return present(request, 'getEsimHistory', entries);
  });
}
