import { createHmac } from 'node:crypto';

/**
 * base64(HMAC-SHA256(key = the organisation's API key, message = the exact body bytes sent)).
 * Sign the bytes that go on the wire, never a re-serialisation of them.
 */
export function signBody(body: string | Buffer, apiKey: string): string {
  return createHmac('sha256', apiKey).update(body).digest('base64');
}
