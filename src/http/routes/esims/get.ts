import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { badRequest } from '../../../domain/errors.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { esimActivity } from '../../../store/repositories/esim-repository.js';
import {
  EsimLiveFields,
  EsimSchema,
  IccidParams,
  activationCode,
  esimBody,
  esimLiveFields,
  loadOwnedEsim,
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

export function registerGetEsim(app: Api, deps: AppDeps): void {
  app.get('/esims/:iccid', { schema }, async (request) => {
    const esim = await loadOwnedEsim(deps, request.organisation.id, request.params.iccid);
    const fields = (request.query.additionalFields ?? '')
      .split(',')
      .map((f) => f.trim())
      .filter((f) => f !== '');
    const unknown = fields.find((f) => !SUPPORTED_FIELDS.has(f));
    if (unknown !== undefined) {
      throw badRequest(
        `query parameter additionalFields: "${unknown}" is not supported; supported: appleInstallUrl`,
      );
    }
    const activity = (await esimActivity(deps.store.db, [esim.iccid])).get(esim.iccid);
    const body = { ...esimBody(esim), ...esimLiveFields(esim, activity) };
    if (!fields.includes('appleInstallUrl')) return body;
    return { ...body, appleInstallUrl: APPLE_SETUP + encodeURIComponent(activationCode(esim)) };
  });
}
