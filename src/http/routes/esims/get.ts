import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { badRequest } from '../../../domain/errors.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { findEsimDetail } from '../../../store/repositories/esim-repository.js';
import type { EsimDetailBody } from './esim-view.js';
import {
  EsimLiveFields,
  EsimSchema,
  IccidParams,
  activationCode,
  checkIccid,
  esimDetailBody,
  esimNotFound,
} from './esim-view.js';

const APPLE_SETUP = 'https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=';

const schema = {
  tags: ['eSIMs'],
  operationId: 'getEsim',
  summary: 'Get an eSIM',
  description:
    'Profile details of one eSIM of the organisation. With additionalFields=appleInstallUrl the ' +
    'response also carries appleInstallUrl, a link that installs the profile on an iPhone (iOS 17.4+).',
  security: apiKeySecurity,
  params: IccidParams,
  querystring: Type.Object({
    additionalFields: Type.Optional(
      Type.String({
        description:
          'Comma-separated extra fields to include. Supported: appleInstallUrl. Unknown names are a 400.',
      }),
    ),
  }),
  response: {
    200: Type.Composite([
      EsimSchema,
      EsimLiveFields,
      Type.Object({
        appleInstallUrl: Type.Optional(
          Type.String({
            description:
              'https://esimsetup.apple.com/esim_qrcode_provisioning?carddata= followed by the URL-encoded activation code LPA:1$<smdpAddress>$<matchingId>.',
          }),
        ),
      }),
    ]),
    400: standardErrors[400],
    403: standardErrors[403],
    404: standardErrors[404],
    500: standardErrors[500],
  },
};

const SUPPORTED_FIELDS = new Set(['appleInstallUrl']);

/** Whether additionalFields asks for appleInstallUrl; 400 naming the first unknown field. */
function wantsAppleInstallUrl(additionalFields: string | undefined): boolean {
  if (additionalFields === undefined || additionalFields === '') return false;
  const fields = additionalFields
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  const unknown = fields.find((f) => !SUPPORTED_FIELDS.has(f));
  if (unknown !== undefined) {
    throw badRequest(
      `query parameter additionalFields: "${unknown}" is not supported; supported: appleInstallUrl`,
    );
  }
  return fields.length > 0;
}

export function registerGetEsim(app: Api, deps: AppDeps): void {
  const { db } = deps.store;
  app.get('/esims/:iccid', { schema }, async (request) => {
    const iccid = checkIccid(request.params.iccid);
    // One statement for the row and its activity; the body is built from it directly.
    const row = await findEsimDetail(db, request.organisation.id, iccid);
    if (row === undefined) throw esimNotFound(iccid);
    const body: EsimDetailBody = esimDetailBody(row);
    if (wantsAppleInstallUrl(request.query.additionalFields))
      body.appleInstallUrl = APPLE_SETUP + encodeURIComponent(activationCode(row));
    return body;
  });
}
