import type { Clock } from '../../clock.js';
import { iso } from '../../clock.js';
import type { Config } from '../../config.js';
import type { RandomSource } from '../../random.js';
import type { Executor } from '../../store/database.js';
import { insertIssuedEsim } from '../../store/repositories/esim-issue-repository.js';
import type { Esim } from './esim.js';

// Issues new eSIM profiles: an ICCID (19 digits: prefix 89 for telecoms, the time of issue,
// random digits, Luhn check digit), an activation matching id, PIN and PUK. Time and randomness
// come from the injected clock and source, so a seeded simulator on a set clock issues the same
// eSIMs run after run.

export const ICCID_PREFIX = '89';
export const ICCID_LENGTH = 19;
const MATCHING_ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const MAX_ATTEMPTS = 8;

/** The Luhn check digit for a string of digits (the digit to append). */
export function luhnCheckDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    // Doubling starts from the rightmost payload digit, which sits next to the check digit.
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/** True when the digits end in a valid Luhn check digit. */
export function luhnValid(digits: string): boolean {
  if (!/^\d{2,}$/.test(digits)) return false;
  return luhnCheckDigit(digits.slice(0, -1)) === Number(digits.slice(-1));
}

export function isValidIccid(value: string): boolean {
  return (
    value.length === ICCID_LENGTH &&
    value.startsWith(ICCID_PREFIX) &&
    /^\d+$/.test(value) &&
    luhnValid(value)
  );
}

function digits(random: RandomSource, n: number): string {
  let out = '';
  for (let i = 0; i < n; i += 1) out += String(random.int(10));
  return out;
}

export function generateIccid(random: RandomSource): string {
  const body = ICCID_PREFIX + digits(random, ICCID_LENGTH - ICCID_PREFIX.length - 1);
  return body + String(luhnCheckDigit(body));
}

// Milliseconds since 1970 take 13 digits until the year 2286.
const TIME_DIGITS = 13;

/**
 * An ICCID whose digits after 89 start with the time of issue in milliseconds, then three
 * random digits: eSIMs issued together sort together, so each one is added at the end of the
 * indexes keyed by ICCID (the eSIM's own, its assignments', its history's) instead of dirtying a
 * random page of each, which every commit then writes out. A clash (several eSIMs in one
 * millisecond, one in a thousand for two) is retried by the caller.
 */
export function generateTimeOrderedIccid(random: RandomSource, at: Date): string {
  const time = String(Math.max(0, Math.floor(at.getTime()))).padStart(TIME_DIGITS, '0');
  const free = ICCID_LENGTH - ICCID_PREFIX.length - 1 - TIME_DIGITS;
  const body = ICCID_PREFIX + time.slice(-TIME_DIGITS) + digits(random, free);
  return body + String(luhnCheckDigit(body));
}

/** Four groups of five upper-case letters and digits, e.g. ABCDE-FGHIJ-KLMNO-PQRST. */
export function generateMatchingId(random: RandomSource): string {
  const groups: string[] = [];
  for (let g = 0; g < 4; g += 1) {
    let group = '';
    for (let i = 0; i < 5; i += 1) {
      group += MATCHING_ID_ALPHABET[random.int(MATCHING_ID_ALPHABET.length)] ?? 'A';
    }
    groups.push(group);
  }
  return groups.join('-');
}

export interface IssueContext {
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly config: Pick<Config, 'smdpAddress'>;
}

/**
 * Issues a new eSIM to the organisation inside the caller's transaction: profileStatus
 * Released, not yet installed. `reference` is the order or apply reference that created it.
 */
export async function issueEsim(
  trx: Executor,
  ctx: IssueContext,
  organisationId: string,
  reference: string,
): Promise<Esim> {
  const now = ctx.clock.now();
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const row: Esim = {
      // After a clash, fully random digits: a clock that stands still (a paused simulator)
      // must not make every later attempt clash too.
      // A seeded source (SIM_SEED) draws every digit, so ICCIDs repeat across runs whatever the
      // time.
      iccid:
        attempt === 0 && ctx.random.seeded !== true
          ? generateTimeOrderedIccid(ctx.random, now)
          : generateIccid(ctx.random),
      organisationId,
      matchingId: generateMatchingId(ctx.random),
      smdpAddress: ctx.config.smdpAddress,
      profileStatus: 'Released',
      pin: digits(ctx.random, 4),
      puk: digits(ctx.random, 8),
      msisdn: null,
      firstInstalledAt: null,
      orderReference: reference,
      createdAt: iso(now),
      customerRef: null,
      state: 'active',
      stateChangedAt: null,
    };
    if (await insertIssuedEsim(trx, row)) return row;
  }
  // 16 random digits collide this often only if the random source is broken.
  throw new Error(`could not issue a unique ICCID after ${MAX_ATTEMPTS} attempts`);
}
