import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { listSms } from '../../../domain/esims/esim-reads.js';
import type { Api } from '../../api.js';
import { checkIccid } from '../esims/esim-view.js';
import { simErrors, simMarks } from './sim-schema.js';

export function registerSimSms(app: Api, deps: AppDeps): void {
  app.get(
    '/sms',
    {
      schema: {
        ...simMarks,
        operationId: 'simListSms',
        summary: 'Read the SMS outbox of the simulated network',
        description: 'Messages delivered through POST /v2.1/esims/{iccid}/sms, newest first.',
        querystring: Type.Object({
          iccid: Type.Optional(Type.String({ description: 'Only messages to this eSIM.' })),
          limit: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 1000,
              default: 100,
              description: 'At most this many.',
            }),
          ),
        }),
        response: {
          200: Type.Object({
            messages: Type.Array(
              Type.Object({
                id: Type.String(),
                iccid: Type.String(),
                msisdn: Type.String(),
                from: Type.String(),
                message: Type.String(),
                createdAt: Type.String({ description: 'RFC 3339 UTC.' }),
              }),
            ),
          }),
          ...simErrors,
        },
      },
    },
    async (request) => {
      const { iccid, limit = 100 } = request.query;
      if (iccid !== undefined) checkIccid(iccid, 'query parameter iccid');
      const rows = await listSms(deps.store.db, iccid, limit);
      return {
        messages: rows.map((r) => ({
          id: r.id,
          iccid: r.iccid,
          msisdn: r.msisdn,
          from: r.sender,
          message: r.message,
          createdAt: r.created_at,
        })),
      };
    },
  );
}
