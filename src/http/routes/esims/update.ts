import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { CUSTOMER_REF_MAX, updateCustomerRef } from '../../../domain/esims/esim-actions.js';
import type { Api } from '../../api.js';
import { bodyFieldName, bodyFromQuery } from '../../fields-from-query.js';
import { headerOnlySecurity, standardErrors } from '../../schemas/common.js';
import { ICCID_DESCRIPTION, checkIccid } from './esim-view.js';

const schema = {
  tags: ['eSIMs'],
  operationId: 'updateEsims',
  summary: 'Set the customer reference of an eSIM',
  description:
    'Stores the organisation\u2019s own reference for one of its eSIMs (for example its ' +
    'customer or device id). GET /esims and GET /esims/{iccid} then carry it as customerRef, and ' +
    'the eSIM history gains an "eSIM Updated" entry. An empty customerRef clears it. An ICCID ' +
    'that is unknown or another organisation\u2019s is a 404. The fields go in a JSON body, or, ' +
    'as the live documentation also shows, in the query string of a request without a body ' +
    '(the body wins when both are sent).',
  security: headerOnlySecurity,
  querystring: Type.Object({
    iccid: Type.Optional(Type.String({ description: 'The eSIM, for a request without a body.' })),
    customerRef: Type.Optional(
      Type.String({ description: 'The reference, for a request without a body.' }),
    ),
  }),
  body: Type.Object(
    {
      iccid: Type.String({ description: `The eSIM. ${ICCID_DESCRIPTION}` }),
      customerRef: Type.String({
        maxLength: CUSTOMER_REF_MAX,
        description: `The reference, up to ${CUSTOMER_REF_MAX} characters; empty clears it.`,
      }),
    },
    { additionalProperties: false },
  ),
  response: {
    200: Type.Object(
      {
        status: Type.String({ description: '"success", as the live service answers.' }),
        iccid: Type.String(),
        customerRef: Type.String({ description: 'The reference now stored.' }),
      },
      {
        description: 'The reference is stored.',
      },
    ),
    400: standardErrors[400],
    403: standardErrors[403],
    404: standardErrors[404],
    500: standardErrors[500],
  },
};

export function registerUpdateEsims(app: Api, deps: AppDeps): void {
  app.put(
    '/esims',
    {
      schema,
      // A request without a body carries the fields in the query string: they become the body
      // here, before validation, so the one body schema checks both forms.
      preValidation: async (request) => {
        if (request.body !== undefined && request.body !== null) return;
        const query = request.query as Record<string, unknown>;
        const fields: Record<string, unknown> = {};
        if (query['iccid'] !== undefined) fields['iccid'] = query['iccid'];
        if (query['customerRef'] !== undefined) fields['customerRef'] = query['customerRef'];
        bodyFromQuery(request, fields);
      },
    },
    async (request) => {
      const iccid = checkIccid(request.body.iccid, `${bodyFieldName(request)} iccid`);
      const { customerRef } = request.body;
      await updateCustomerRef(deps, request.organisation.id, iccid, customerRef);
      return { status: 'success', iccid, customerRef };
    },
  );
}
