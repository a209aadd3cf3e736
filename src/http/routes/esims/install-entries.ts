import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { AppDeps } from '../../../deps.js';
import {
  appleInstallUrlOf,
  installCsv,
  installFileName,
  installZip,
  loadInstallEntries,
  parseReferences,
} from '../../../domain/esims/install-data.js';
import type { InstallEntry } from '../../../domain/esims/install-data.js';

// Install data as the later versions serve it (v2.2+, capability `installDataLists`): one or many
// references (`reference=a,b`), JSON always a list of entries, the ZIP with its CSV mapping, and
// additionalFields=appleInstallUrl. Why a list: docs/versions.md, "Install data".

/** One entry of the JSON list: the eSIM's install profile, then the install-data row fields. */
export const InstallEntrySchema = Type.Object(
  {
    iccid: Type.String({ description: 'ICCID: 19 digits, prefix 89, Luhn check digit.' }),
    matchingId: Type.String({ description: 'Activation matching id.' }),
    smdpAddress: Type.String({ description: 'SM-DP+ host name of the activation code.' }),
    profileStatus: Type.String({
      description: 'Released, Downloaded, Installed or Unavailable.',
    }),
    pin: Type.String({ description: '4 digits.' }),
    puk: Type.String({ description: '8 digits.' }),
    firstInstalledDateTime: Type.String({
      description: 'When the profile was first installed, RFC 3339 UTC; empty if never.',
    }),
    rspUrl: Type.String({ description: 'The SM-DP+ address again, under its CSV name (RSP URL).' }),
    bundle: Type.String({ description: 'The bundle the reference put on this eSIM.' }),
    reference: Type.String({ description: 'The order or apply reference asked for.' }),
    appleInstallUrl: Type.Optional(
      Type.String({
        description:
          'With additionalFields=appleInstallUrl: the link that installs the profile on an iPhone.',
      }),
    ),
  },
  { title: 'InstallEntry' },
);

export const InstallEntryList = Type.Array(InstallEntrySchema, {
  description:
    'One entry per eSIM and bundle of each reference, references in the order asked (a list ' +
    'also for one eSIM).',
});

/**
 * Whether additionalFields asks for appleInstallUrl. Names it does not know are ignored, as the
 * live service ignores them: client code asks for fields such as qrCode and carries on without.
 */
export function wantsAppleInstallUrl(additionalFields: string | undefined): boolean {
  if (additionalFields === undefined) return false;
  return additionalFields.split(',').some((f) => f.trim() === 'appleInstallUrl');
}

function entryJson(entry: InstallEntry, apple: boolean): Record<string, string> {
  const json: Record<string, string> = {
    iccid: entry.iccid,
    matchingId: entry.matchingId,
    smdpAddress: entry.smdpAddress,
    profileStatus: entry.profileStatus,
    pin: entry.pin,
    puk: entry.puk,
    firstInstalledDateTime: entry.firstInstalledDateTime,
    rspUrl: entry.smdpAddress,
    bundle: entry.bundle,
    reference: entry.reference,
  };
  if (apple) json['appleInstallUrl'] = appleInstallUrlOf(entry);
  return json;
}

/** The file name of a download: the reference, or `esims-<first>-and-<n>-more` for several. */
function fileNameOf(references: readonly string[]): string {
  const [first = 'esims'] = references;
  const base = installFileName(first);
  return references.length === 1 ? base : `${base}-and-${references.length - 1}-more`;
}

export async function sendInstallEntries(
  reply: FastifyReply,
  deps: AppDeps,
  organisationId: string,
  ask: {
    references: string;
    format: 'csv' | 'json' | 'zip';
    additionalFields?: string | undefined;
  },
): Promise<FastifyReply> {
  const references = parseReferences(ask.references);
  const apple = wantsAppleInstallUrl(ask.additionalFields);
  const entries = await loadInstallEntries(deps.store.db, organisationId, references);
  if (ask.format === 'json') {
    return reply
      .type('application/json; charset=utf-8')
      .send(JSON.stringify(entries.map((e) => entryJson(e, apple))));
  }
  const csv = installCsv(entries, { appleInstallUrl: apple });
  const file = fileNameOf(references);
  if (ask.format === 'zip') {
    const zip = await installZip(entries, deps.clock.now(), csv);
    return reply
      .type('application/zip')
      .header('content-disposition', `attachment; filename="${file}.zip"`)
      .send(zip);
  }
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${file}.csv"`)
    .send(csv);
}
