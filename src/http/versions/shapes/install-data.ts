import { Type } from '@sinclair/typebox';
import type { TSchema } from '@sinclair/typebox';
import { MAX_INSTALL_REFERENCES } from '../../../domain/esims/install-data.js';
import { InstallEntryList } from '../../routes/esims/install-entries.js';
import type { RequestWire } from '../version.js';

// GET /esims/assignments on v2.2 and later: several references, a JSON list, additionalFields.
// The handler's switches `installDataLists` (v2.2+) and `installDataJsonByDefault` (v2.5) choose
// the behaviour; this is what the versions' documents say and validate.

const querystring = Type.Object({
  reference: Type.String({
    minLength: 1,
    maxLength: MAX_INSTALL_REFERENCES * 101,
    description: `One or more order or apply references, separated by commas (at most ${MAX_INSTALL_REFERENCES}).`,
  }),
  additionalFields: Type.Optional(
    Type.String({
      description:
        'appleInstallUrl adds the iPhone install link (a JSON field; a CSV column "Apple Install URL"). Other names are ignored.',
    }),
  ),
  format: Type.Optional(
    Type.Unsafe<'csv' | 'zip' | 'json'>({
      type: 'string',
      enum: ['csv', 'zip', 'json'],
      description: 'csv, zip or json; wins over Accept.',
    }),
  ),
});

function description(defaultFormat: 'CSV' | 'JSON'): string {
  return (
    'Install data of one or more order or apply references (reference=a,b,c), chosen by Accept: ' +
    'text/csv (ICCID, Matching ID, RSP URL, Bundle; one row per eSIM and bundle), application/json ' +
    '(a list of entries, also for one eSIM) or application/zip (a QR code PNG per eSIM carrying ' +
    'LPA:1$<smdpAddress>$<matchingId>, and esims.csv mapping them). Without an Accept header, or ' +
    `with only */*: ${defaultFormat}. A reference that is unknown or another organisation\u2019s is a 404 naming it.`
  );
}

const response = (defaultFormat: 'CSV' | 'JSON'): TSchema =>
  ({
    description: `text/csv, application/json or application/zip (default ${defaultFormat}).`,
    content: {
      'text/csv': { schema: { type: 'string' } },
      'application/json': { schema: InstallEntryList },
      'application/zip': { schema: { type: 'string', format: 'binary' } },
    },
  }) as unknown as TSchema;

const EXAMPLE = [
  {
    iccid: '8944000000000000019',
    matchingId: 'ABCDE-FGHIJ-KLMNO-PQRST',
    smdpAddress: 'smdp.esim-bundle.example',
    profileStatus: 'Released',
    pin: '1234',
    puk: '12345678',
    firstInstalledDateTime: '',
    rspUrl: 'smdp.esim-bundle.example',
    bundle: 'esim_1GB_7D_GB_V2',
    reference: '0190c7a2-5b1e-7c3d-9e4f-a1b2c3d4e5f6',
  },
];

export const installDataV22: RequestWire = {
  example: EXAMPLE,
  querystring,
  response: response('CSV'),
  description: description('CSV'),
};

export const installDataV25: RequestWire = {
  example: EXAMPLE,
  response: response('JSON'),
  description: description('JSON'),
};
