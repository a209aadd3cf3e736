import { createHmac, timingSafeEqual } from 'node:crypto';

// For integrators receiving V3 usage callbacks: import { verifyCallbackSignature } from
// 'esim-bundle-service-client/verify', or copy these few lines. The service signs with its own
// src/callbacks/signer.ts; test/callbacks/e2e.test.ts checks delivered callbacks with this.

/**
 * True when `signatureHeader` (the X-Signature-SHA256 value) is the base64 HMAC-SHA256 of the raw
 * request body under the organisation's API key. Pass the body exactly as received (a string, a
 * Buffer or other bytes), before any JSON parsing: re-serialised JSON rarely has the same bytes.
 * The comparison is constant-time.
 */
export function verifyCallbackSignature(
  rawBody: string | Uint8Array,
  signatureHeader: string,
  apiKey: string,
): boolean {
  if (typeof signatureHeader !== 'string' || signatureHeader === '' || apiKey === '') return false;
  const expected = Buffer.from(createHmac('sha256', apiKey).update(rawBody).digest('base64'));
  const presented = Buffer.from(signatureHeader.trim(), 'utf8');
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}
