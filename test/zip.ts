import jsqr from 'jsqr';
import { PNG } from 'pngjs';
import yauzl from 'yauzl';

// Reading what the install-data downloads hold: the entries of a ZIP and the text of a QR code.

// jsqr is CommonJS with an ES-style default export in its types; take whichever form loads.
type Decode = typeof jsqr.default;
const jsQR: Decode =
  (jsqr as unknown as { default?: Decode }).default ?? (jsqr as unknown as Decode);

/** Every entry of a ZIP archive by name. */
export function unzip(buffer: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true }, (error, zip) => {
      if (error !== null || zip === undefined) return reject(error ?? new Error('no zip'));
      const files = new Map<string, Buffer>();
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (err, stream) => {
          if (err !== null || stream === undefined) return reject(err ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            files.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(files));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/** The text a PNG QR code carries; undefined when none is found. */
export function decodeQr(png: Buffer): string | undefined {
  const image = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
}
