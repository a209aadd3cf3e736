import type { Executor } from '../../store/database.js';
import {
  listAssignmentsByReference,
  listAssignmentsByReferences,
} from '../../store/repositories/assignment-repository.js';
import type { ProfileStatus } from './esim.js';
import { listEsimsByIccid } from '../../store/repositories/esim-repository.js';
import { badRequest, gone, notFound } from '../errors/error-codes.js';

// Install data for the eSIMs of an order or apply reference: a CSV an operator can mail-merge,
// and a ZIP with one QR code per eSIM that a phone camera turns into the profile download.

export interface InstallRow {
  readonly iccid: string;
  readonly matchingId: string;
  readonly smdpAddress: string;
  readonly bundle: string;
}

export const CSV_HEADER = ['ICCID', 'Matching ID', 'RSP URL', 'Bundle'] as const;

/** The LPA activation code a QR code carries (GSMA SGP.22): LPA:1$<SM-DP+ address>$<matching id>. */
export function activationCodeOf(row: Pick<InstallRow, 'smdpAddress' | 'matchingId'>): string {
  return `LPA:1$${row.smdpAddress}$${row.matchingId}`;
}

function csvField(value: string): string {
  // Quote when needed (RFC 4180), and defuse leading formula characters for spreadsheets.
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The column `additionalFields=appleInstallUrl` adds to the CSV. */
export const CSV_APPLE_COLUMN = 'Apple Install URL';

const APPLE_SETUP = 'https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=';

/** The link that installs a profile on an iPhone (iOS 17.4+): Apple's setup page and the code. */
export function appleInstallUrlOf(row: Pick<InstallRow, 'smdpAddress' | 'matchingId'>): string {
  return APPLE_SETUP + encodeURIComponent(activationCodeOf(row));
}

export interface CsvOptions {
  /** Adds the column `Apple Install URL` (additionalFields=appleInstallUrl). */
  readonly appleInstallUrl?: boolean;
}

export function installCsv(rows: readonly InstallRow[], options: CsvOptions = {}): string {
  const apple = options.appleInstallUrl === true;
  const lines = [(apple ? [...CSV_HEADER, CSV_APPLE_COLUMN] : CSV_HEADER).join(',')];
  for (const r of rows) {
    const fields = [r.iccid, r.matchingId, r.smdpAddress, r.bundle];
    if (apple) fields.push(appleInstallUrlOf(r));
    lines.push(fields.map(csvField).join(','));
  }
  return lines.join('\r\n') + '\r\n';
}

/** The CSV a ZIP may carry beside its QR codes, mapping each PNG to its eSIM and bundle. */
export const ZIP_MAPPING_FILE = 'esims.csv';

/**
 * A ZIP of `<iccid>.png` QR codes (one per eSIM) carrying each activation code; with `mapping`,
 * also that CSV as `esims.csv`, after the images.
 */
export async function installZip(
  rows: readonly InstallRow[],
  at: Date,
  mapping?: string,
): Promise<Buffer> {
  // Loaded on first use: most starts never make a ZIP.
  const [{ default: QRCode }, { default: yazl }] = await Promise.all([
    import('qrcode'),
    import('yazl'),
  ]);
  const zip = new yazl.ZipFile();
  const seen = new Set<string>();
  for (const r of rows) {
    if (seen.has(r.iccid)) continue;
    seen.add(r.iccid);
    const png = await QRCode.toBuffer(activationCodeOf(r), {
      type: 'png',
      errorCorrectionLevel: 'M',
      margin: 4,
      scale: 6,
    });
    // PNG is already compressed; storing avoids a second deflate.
    zip.addBuffer(png, `${r.iccid}.png`, { compress: false, mtime: at });
  }
  if (mapping !== undefined)
    zip.addBuffer(Buffer.from(mapping, 'utf8'), ZIP_MAPPING_FILE, { mtime: at });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The assignments of a reference and the eSIMs they name; unknown or another organisation's: 404.
 * Deleted (deactivated) eSIMs are left out, and a reference whose eSIMs were all deleted is a 410.
 */
async function loadReference(db: Executor, organisationId: string, reference: string) {
  const assignments = await listAssignmentsByReference(db, organisationId, reference);
  if (assignments.length === 0) throw notFound(`reference ${reference} not found`);
  const rows = await listEsimsByIccid(
    db,
    organisationId,
    assignments.map((a) => a.iccid),
  );
  const live = rows.filter((e) => e.state !== 'deactivated');
  if (live.length === 0 && rows.length > 0) throw installDataGone(reference);
  return { assignments, esims: new Map(live.map((e) => [e.iccid, e])) };
}

/** The 410 of install data whose eSIMs were deleted: a check any install-data surface can call. */
export function installDataGone(reference: string): Error {
  return gone(
    `the eSIMs of reference ${reference} were deleted (deactivated); their install data is gone`,
  );
}

/**
 * 410 when every one of the given eSIMs of the organisation was deleted (deactivated), for a
 * surface that finds install data its own way; returns the ICCIDs still on the account.
 */
export async function liveInstallIccids(
  db: Executor,
  organisationId: string,
  reference: string,
  iccids: readonly string[],
): Promise<Set<string>> {
  const rows = await listEsimsByIccid(db, organisationId, iccids);
  const live = new Set(rows.filter((e) => e.state !== 'deactivated').map((e) => e.iccid));
  if (live.size === 0 && rows.length > 0) throw installDataGone(reference);
  return live;
}

/**
 * The install rows of an order or apply reference of the organisation: one per eSIM and bundle,
 * in assignment order. A reference that is unknown or another organisation's is a 404.
 */
export async function loadInstallRows(
  db: Executor,
  organisationId: string,
  reference: string,
): Promise<InstallRow[]> {
  const { assignments, esims } = await loadReference(db, organisationId, reference);
  const rows: InstallRow[] = [];
  const seen = new Set<string>();
  for (const a of assignments) {
    const esim = esims.get(a.iccid);
    const key = `${a.iccid}\n${a.bundleName}`;
    if (esim === undefined || seen.has(key)) continue;
    seen.add(key);
    rows.push({
      iccid: esim.iccid,
      matchingId: esim.matchingId,
      smdpAddress: esim.smdpAddress,
      bundle: a.bundleName,
    });
  }
  return rows;
}

/** The eSIMs of an order or apply reference, once each, in assignment order (404 as above). */
export async function loadInstallEsims(db: Executor, organisationId: string, reference: string) {
  const { assignments, esims } = await loadReference(db, organisationId, reference);
  const found = [];
  for (const iccid of new Set(assignments.map((a) => a.iccid))) {
    const esim = esims.get(iccid);
    if (esim !== undefined) found.push(esim);
  }
  return found;
}

/** The base of a download's file name: the reference with anything unsafe replaced. */
export function installFileName(reference: string): string {
  return `esims-${reference.replace(/[^A-Za-z0-9-]/g, '_')}`;
}

// Several references at once (`reference=a,b,c`): the later versions' GET /esims/assignments.

/** At most this many references in one request. */
export const MAX_INSTALL_REFERENCES = 50;

/**
 * The references of a comma-separated list: trimmed, each once, in the order given. None, an
 * empty one or more than MAX_INSTALL_REFERENCES: 400 naming the parameter.
 */
export function parseReferences(text: string, parameter = 'query parameter reference'): string[] {
  const parts = text.split(',').map((r) => r.trim());
  if (parts.some((r) => r === '')) {
    throw badRequest(`${parameter} must list references separated by commas, none empty`);
  }
  const unique = [...new Set(parts)];
  if (unique.length > MAX_INSTALL_REFERENCES) {
    throw badRequest(
      `${parameter} lists ${unique.length} references; at most ${MAX_INSTALL_REFERENCES}`,
    );
  }
  const long = unique.find((r) => r.length > 100);
  if (long !== undefined) throw badRequest(`${parameter}: a reference is at most 100 characters`);
  return unique;
}

/** One eSIM and bundle of a reference, with the eSIM's profile: an entry of the install data. */
export interface InstallEntry extends InstallRow {
  readonly reference: string;
  readonly profileStatus: ProfileStatus;
  readonly pin: string;
  readonly puk: string;
  /** RFC 3339 UTC, or empty when never installed. */
  readonly firstInstalledDateTime: string;
}

/**
 * The install entries of several references of the organisation: for each reference in the
 * order given, one entry per eSIM and bundle, in assignment order. Deleted (deactivated) eSIMs
 * are left out, as by loadInstallRows. All or nothing: the first reference that is unknown or
 * another organisation's is a 404 naming it, and the first whose eSIMs were all deleted a 410.
 */
export async function loadInstallEntries(
  db: Executor,
  organisationId: string,
  references: readonly string[],
): Promise<InstallEntry[]> {
  const assignments = await listAssignmentsByReferences(db, organisationId, references);
  const byReference = new Map<string, typeof assignments>();
  for (const a of assignments) {
    const list = byReference.get(a.reference);
    if (list === undefined) byReference.set(a.reference, [a]);
    else list.push(a);
  }
  const missing = references.find((r) => !byReference.has(r));
  if (missing !== undefined) throw notFound(`reference ${missing} not found`);
  const iccids = [...new Set(assignments.map((a) => a.iccid))];
  const rows = await listEsimsByIccid(db, organisationId, iccids);
  const esims = new Map(rows.filter((e) => e.state !== 'deactivated').map((e) => [e.iccid, e]));
  const owned = new Set(rows.map((e) => e.iccid));
  for (const reference of references) {
    const ofReference = (byReference.get(reference) ?? []).filter((a) => owned.has(a.iccid));
    if (ofReference.length > 0 && !ofReference.some((a) => esims.has(a.iccid))) {
      throw installDataGone(reference);
    }
  }
  const entries: InstallEntry[] = [];
  for (const reference of references) {
    const seen = new Set<string>();
    for (const a of byReference.get(reference) ?? []) {
      const esim = esims.get(a.iccid);
      const key = `${a.iccid}\n${a.bundleName}`;
      if (esim === undefined || seen.has(key)) continue;
      seen.add(key);
      entries.push({
        reference,
        iccid: esim.iccid,
        matchingId: esim.matchingId,
        smdpAddress: esim.smdpAddress,
        bundle: a.bundleName,
        profileStatus: esim.profileStatus,
        pin: esim.pin,
        puk: esim.puk,
        firstInstalledDateTime: esim.firstInstalledAt ?? '',
      });
    }
  }
  return entries;
}
