import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import {
  installCsv,
  installFileName,
  installZip,
  loadInstallRows,
} from '../../../domain/esims/install-data.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';

// v2.1's own install-data paths: the QR codes and the CSV of an order or apply reference, each
// at its own address (the live service's later versions serve both from /esims/assignments).

const Params = Type.Object({
  reference: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'An orderReference (order placed with assign=true) or an applyReference.',
  }),
});

const errors = {
  400: standardErrors[400],
  403: standardErrors[403],
  404: {
    ...standardErrors[404],
    description: 'No such reference, or it belongs to another organisation.',
  },
  500: standardErrors[500],
};

const CSV_EXAMPLE =
  'ICCID,Matching ID,RSP URL,Bundle\r\n' +
  '8944000000000000019,ABCDE-FGHIJ-KLMNO-PQRST,smdp.esim-bundle.example,esim_1GB_7D_GB_V2\r\n';

export function registerInstallFiles(app: Api, deps: AppDeps): void {
  app.get(
    '/esims/qr/:reference',
    {
      schema: {
        tags: ['eSIMs'],
        operationId: 'getInstallQrCodes',
        summary: 'QR codes of the eSIMs of an order or apply reference (ZIP of PNG)',
        description:
          'A ZIP holding <iccid>.png for each eSIM the reference assigned: a QR code carrying the ' +
          'activation code LPA:1$<smdpAddress>$<matchingId>, which a phone camera turns into the ' +
          'profile download. The same files as GET /esims/assignments?reference=...&format=zip.',
        security: apiKeySecurity,
        params: Params,
        produces: ['application/zip', 'application/json'],
        response: {
          200: {
            description: 'application/zip, sent as an attachment named esims-<reference>.zip.',
            content: {
              'application/zip': {
                schema: { type: 'string', format: 'binary' },
              },
            },
          },
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const { reference } = request.params;
      const rows = await loadInstallRows(deps.store.db, request.organisation.id, reference);
      const zip = await installZip(rows, deps.clock.now());
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${installFileName(reference)}.zip"`)
        .send(zip);
    },
  );

  app.get(
    '/esims/csv/:reference',
    {
      schema: {
        tags: ['eSIMs'],
        operationId: 'getInstallCsv',
        summary: 'Install data of the eSIMs of an order or apply reference (CSV)',
        description:
          'A CSV with the header ICCID, Matching ID, RSP URL, Bundle and one row per eSIM and ' +
          'bundle the reference assigned (RFC 4180 quoting, CRLF line ends). The same file as ' +
          'GET /esims/assignments?reference=...&format=csv.',
        security: apiKeySecurity,
        params: Params,
        produces: ['text/csv', 'application/json'],
        response: {
          200: {
            description:
              'text/csv; charset=utf-8, sent as an attachment named esims-<reference>.csv.',
            content: {
              'text/csv': { schema: { type: 'string', example: CSV_EXAMPLE } },
            },
          },
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const { reference } = request.params;
      const rows = await loadInstallRows(deps.store.db, request.organisation.id, reference);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${installFileName(reference)}.csv"`)
        .send(installCsv(rows));
    },
  );
}
