import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import {
  installCsv,
  installFileName,
  installZip,
  loadInstallRows,
} from '../../../domain/install-data.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';

const schema = {
  tags: ['eSIMs'],
  summary: 'Install data for an order or apply reference (CSV or ZIP of QR codes)',
  description:
    'The eSIMs assigned by one order (assign=true) or one apply, as a CSV with the columns ' +
    'ICCID, Matching ID, RSP URL, Bundle (one row per eSIM and bundle), or as a ZIP holding ' +
    '<iccid>.png, a QR code per eSIM carrying its activation code LPA:1$<smdpAddress>$<matchingId>. ' +
    'Choose with format, or with Accept: text/csv | application/zip (format wins). A reference ' +
    'that is unknown or another organisation\u2019s is a 404.',
  security: apiKeySecurity,
  querystring: Type.Object({
    reference: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'An orderReference or applyReference.',
    }),
    format: Type.Optional(
      Type.Unsafe<'csv' | 'zip'>({
        type: 'string',
        enum: ['csv', 'zip'],
        description: 'csv (text/csv) or zip (application/zip). Default: from Accept, else csv.',
      }),
    ),
  }),
  produces: ['text/csv', 'application/zip', 'application/json'],
  response: {
    200: {
      description: 'text/csv; charset=utf-8 or application/zip, sent as an attachment.',
      content: {
        'text/csv': { schema: { type: 'string' } },
        'application/zip': { schema: { type: 'string', format: 'binary' } },
      },
    },
    400: standardErrors[400],
    403: standardErrors[403],
    404: standardErrors[404],
    500: standardErrors[500],
  },
};

export function registerInstallData(app: Api, deps: AppDeps): void {
  app.get('/esims/assignments', { schema }, async (request, reply) => {
    const { reference } = request.query;
    const rows = await loadInstallRows(deps.store.db, request.organisation.id, reference);
    const accept = String(request.headers.accept ?? '');
    const format = request.query.format ?? (/application\/zip/i.test(accept) ? 'zip' : 'csv');
    const file = installFileName(reference);
    if (format === 'zip') {
      const zip = await installZip(rows, deps.clock.now());
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${file}.zip"`)
        .send(zip);
    }
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${file}.csv"`)
      .send(installCsv(rows));
  });
}
