import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

// Session ids, CSRF tokens and one-time link tokens: 32 random bytes, base64url. The database
// keeps only the SHA-256 of session ids and link tokens, so a copy of it opens no session.

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function secretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
