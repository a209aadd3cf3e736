import QRCode from 'qrcode';
import yazl from 'yazl';

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
