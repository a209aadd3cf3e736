import { Type } from '@sinclair/typebox';
import Negotiator from 'negotiator';
import type { AppDeps } from '../../../deps.js';
import {
  installCsv,
  installFileName,
  installZip,
  loadInstallEsims,
  loadInstallRows,
} from '../../../domain/esims/install-data.js';
import { can } from '../../versions/capabilities.js';
import { sendInstallEntries } from './install-entries.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { EsimSchema, esimBody } from './esim-view.js';

/** What Accept may ask for, the default (the live service's) first. */
const MEDIA_TYPES = {
  'text/csv': 'csv',
  'application/json': 'json',
  'application/zip': 'zip',
} as const;
type Format = (typeof MEDIA_TYPES)[keyof typeof MEDIA_TYPES];

/** The format an Accept header prefers (q-values and wildcards honoured); CSV when none fits. */
export function negotiateInstallFormat(
  accept: string | undefined,
  fallback: Format = 'csv',
): Format {
  if (accept === undefined || accept.trim() === '') return fallback;
  // Wildcards only (`*/*`, what most HTTP libraries send unasked): the version's default.
  if (fallback !== 'csv' && accept.split(',').every((a) => /^\s*\*\/\*\s*(;|$)/.test(a))) {
    return fallback;
  }
  const chosen = new Negotiator({ headers: { accept } }).mediaType(Object.keys(MEDIA_TYPES));
  return chosen === undefined
    ? fallback
    : (MEDIA_TYPES[chosen as keyof typeof MEDIA_TYPES] ?? fallback);
}

const schema = {
  tags: ['eSIMs'],
  operationId: 'getInstallData',
  summary: 'Install data for an order or apply reference (CSV or ZIP of QR codes)',
  description:
    'The eSIMs assigned by one order (assign=true) or one apply, as a CSV with the columns ' +
    'ICCID, Matching ID, RSP URL, Bundle (one row per eSIM and bundle), or as a ZIP holding ' +
    '<iccid>.png, a QR code per eSIM carrying its activation code LPA:1$<smdpAddress>$<matchingId>. ' +
    'As JSON, the eSIMs themselves (iccid, matchingId, smdpAddress, profileStatus, pin, puk, ' +
    'firstInstalledDateTime): one object when the reference has one eSIM, as the live service ' +
    'answers, and an array of them when it has several. Choose with Accept: text/csv (the ' +
    'default, also for */* or no Accept), application/json or application/zip, q-values honoured; ' +
    'or with format (which wins). A reference that is unknown or another organisation\u2019s is a 404.',
  security: apiKeySecurity,
  querystring: Type.Object({
    reference: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'An orderReference or applyReference.',
    }),
    format: Type.Optional(
      Type.Unsafe<'csv' | 'zip' | 'json'>({
        type: 'string',
        enum: ['csv', 'zip', 'json'],
        description:
          'csv (text/csv), zip (application/zip) or json (application/json). Default: from Accept, else csv.',
      }),
    ),
  }),
  produces: ['text/csv', 'application/zip', 'application/json'],
  response: {
    200: {
      description:
        'text/csv; charset=utf-8 or application/zip, sent as an attachment; or application/json: the eSIM, or an array of them when the reference has several.',
      content: {
        'text/csv': { schema: { type: 'string' } },
        'application/json': {
          schema: Type.Union([EsimSchema, Type.Array(EsimSchema)]),
        },
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
    // v2.5 answers JSON when the client does not say (docs/versions.md, install data).
    const fallback = can(request, 'installDataJsonByDefault') ? 'json' : 'csv';
    const format = request.query.format ?? negotiateInstallFormat(request.headers.accept, fallback);
    reply.header('vary', 'Accept');
    // v2.2+: several references, a JSON list, the CSV in the ZIP, additionalFields.
    if (can(request, 'installDataLists')) {
      const { additionalFields } = request.query as { additionalFields?: string };
      return sendInstallEntries(reply, deps, request.organisation.id, {
        references: reference,
        format,
        additionalFields,
      });
    }
    if (format === 'json') {
      const esims = await loadInstallEsims(deps.store.db, request.organisation.id, reference);
      const bodies = esims.map(esimBody);
      return reply
        .type('application/json; charset=utf-8')
        .send(JSON.stringify(bodies.length === 1 ? bodies[0] : bodies));
    }
    const rows = await loadInstallRows(deps.store.db, request.organisation.id, reference);
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
