import { timingSafeEqual } from 'node:crypto';
import { signBody } from './callbacks/signer.js';

// For integrators receiving V3 usage callbacks: import { verifyCallbackSignature } from
// 'esim-bundle-service/verify' (the package's export), or copy these few lines.

/**
 * True when `signatureHeader` (the X-Signature-SHA256 value) is the base64 HMAC-SHA256 of the raw
 * request body under the organisation's API key. Pass the body exactly as received, before any
 * JSON parsing: re-serialised JSON rarely has the same bytes. The comparison is constant-time.
 */
export function verifyCallbackSignature(
  rawBody: string | Buffer,
  signatureHeader: string,
  apiKey: string,
): boolean {
  if (typeof signatureHeader !== 'string' || signatureHeader === '' || apiKey === '') return false;
  const expected = Buffer.from(signBody(rawBody, apiKey), 'utf8');
  const presented = Buffer.from(signatureHeader.trim(), 'utf8');
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}
