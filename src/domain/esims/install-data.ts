import type { Executor } from '../../store/database.js';
import { listAssignmentsByReference } from '../../store/repositories/assignment-repository.js';
import { listEsimsByIccid } from '../../store/repositories/esim-repository.js';
import { notFound } from '../errors/error-codes.js';

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

export function installCsv(rows: readonly InstallRow[]): string {
  const lines = [CSV_HEADER.join(',')];
  for (const r of rows) {
    lines.push([r.iccid, r.matchingId, r.smdpAddress, r.bundle].map(csvField).join(','));
  }
  return lines.join('\r\n') + '\r\n';
}

/** A ZIP of `<iccid>.png` QR codes (one per eSIM) carrying each activation code. */
export async function installZip(rows: readonly InstallRow[], at: Date): Promise<Buffer> {
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
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The assignments of a reference and the eSIMs they name; unknown or another organisation's: 404. */
async function loadReference(db: Executor, organisationId: string, reference: string) {
  const assignments = await listAssignmentsByReference(db, organisationId, reference);
  if (assignments.length === 0) throw notFound(`reference ${reference} not found`);
  const esims = new Map(
    (
      await listEsimsByIccid(
        db,
        organisationId,
        assignments.map((a) => a.iccid),
      )
    ).map((e) => [e.iccid, e]),
  );
  return { assignments, esims };
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
    const key = `${a.iccid}\n${a.bundle_name}`;
    if (esim === undefined || seen.has(key)) continue;
    seen.add(key);
    rows.push({
      iccid: esim.iccid,
      matchingId: esim.matching_id,
      smdpAddress: esim.smdp_address,
      bundle: a.bundle_name,
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
