import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { badRequest } from '../errors/error-codes.js';

// Passwords are hashed with scrypt (memory-hard): N = 2^cost with PORTAL_PASSWORD_COST (15 by
// default: 32 MiB and roughly 50-100 ms of one core per hash), r = 8, p = 1, a 16-byte random
// salt and a 32-byte result, stored as `scrypt$N$r$p$salt$hash` (base64) so the parameters can be
// raised later without breaking stored hashes: a check reads them from the hash. Hashing runs on
// libuv's thread pool, not the event loop.

const R = 8;
const P = 1;
const KEY_LENGTH = 32;
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEY_LENGTH, { N: n, r, p, maxmem: 256 * n * r }, (error, key) => {
      if (error === null) resolve(key);
      else reject(error);
    });
  });
}

/** Refuses a password too short or too long, naming the field. */
export function checkPasswordRules(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw badRequest(`password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    throw badRequest(`password must be at most ${MAX_PASSWORD_LENGTH} characters`);
  }
}

/** Hashes with N = 2^cost (config.portal.passwordCost). */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const n = 2 ** cost;
  const salt = randomBytes(16);
  const key = await derive(password, salt, n, R, P);
  return ['scrypt', n, R, P, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await derive(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p));
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * A hash of a random password at the given cost, to spend the same time when no account matches
 * an email as when one does.
 */
const decoys = new Map<number, Promise<string>>();
export function decoyHash(cost: number): Promise<string> {
  let decoy = decoys.get(cost);
  if (decoy === undefined) {
    decoy = hashPassword(randomBytes(16).toString('hex'), cost);
    decoys.set(cost, decoy);
  }
  return decoy;
}
