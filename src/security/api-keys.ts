import {
  createCipheriv,
  createDecipheriv,
  createHash,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import type { RandomSource } from '../random.js';

// API keys are high-entropy random strings. The store keeps a SHA-256 hash for lookup (a slow
// hash adds nothing for 256-bit random secrets) and an AES-256-GCM ciphertext, because the key is
// also the HMAC key of V3 callbacks and has to be recovered to sign them.

const PREFIX = 'esim_';

/**
 * A new key. Drawn from the operating system's generator, unless `random` is a seeded simulator
 * sequence (SIM_SEED), whose keys repeat across runs on purpose.
 */
export function generateApiKey(random?: RandomSource): string {
  if (random?.seeded !== true) return PREFIX + randomBytes(32).toString('base64url');
  return (
    PREFIX + Buffer.from(Array.from({ length: 32 }, () => random.int(256))).toString('base64url')
  );
}

/** A key as the service writes them: the prefix, then 43 base64url characters (32 bytes). */
export function isWellFormedApiKey(key: string): boolean {
  return /^esim_[A-Za-z0-9_-]{43}$/.test(key);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Why a stored API key cannot be read: it was sealed under another master key. */
export const KEY_NOT_DECRYPTED =
  "the organisation's API key does not decrypt with this MASTER_KEY (an instance with another " +
  "instance's key, or a re-key not finished: rotate the organisation's key)";

export interface KeyCipher {
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
}

/**
 * The stored key in clear, or undefined when it cannot be read here (sealed under another master
 * key: a re-key not finished, an instance with another MASTER_KEY), for a caller that has an
 * answer of its own for that case.
 */
export function readableKey(cipher: KeyCipher, sealed: string): string | undefined {
  try {
    return cipher.decrypt(sealed);
  } catch {
    return undefined;
  }
}

export function createKeyCipher(masterKey: Buffer): KeyCipher {
  if (masterKey.length !== 32) throw new Error('master key must be 32 bytes');
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [
        'v1',
        iv.toString('base64'),
        cipher.getAuthTag().toString('base64'),
        body.toString('base64'),
      ].join(':');
    },
    decrypt(sealed) {
      const [version, iv, tag, body] = sealed.split(':');
      if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined) {
        throw new Error('unrecognised encrypted key format');
      }
      const decipher = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      try {
        return Buffer.concat([
          decipher.update(Buffer.from(body, 'base64')),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        // GCM's own message ("Unsupported state or unable to authenticate data") names no cause.
        throw new Error(KEY_NOT_DECRYPTED);
      }
    },
  };
}
