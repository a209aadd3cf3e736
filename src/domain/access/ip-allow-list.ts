import { BlockList, isIP } from 'node:net';
import { audit, apiActor } from '../audit/audit-log.js';
import type { Executor } from '../../store/database.js';
import { badRequest } from '../errors/error-codes.js';

// An organisation's IP allow-list (the live service's v2.5 "IP whitelisting"): the addresses
// and CIDR ranges the API answers for it. Empty: any address. A request from another address is
// refused exactly as one with an invalid key is (src/http/auth.ts), whichever version it calls.

export const MAX_ALLOW_LIST_ENTRIES = 100;

/** An IPv4 address written inside IPv6 (::ffff:192.0.2.1) as plain IPv4. */
function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}

/** One entry checked and written canonically: an address, or a CIDR range `address/bits`. */
function checkEntry(raw: string): string {
  const entry = raw.trim();
  const [address = '', bits, extra] = entry.split('/');
  const plain = plainAddress(address);
  const family = isIP(plain);
  const max = family === 4 ? 32 : 128;
  const prefix = bits === undefined ? undefined : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
  if (family === 0 || extra !== undefined || (prefix !== undefined && !(prefix <= max))) {
    throw badRequest(
      `"${entry.slice(0, 60)}" is not an IP address or CIDR range (e.g. 203.0.113.7, 198.51.100.0/24, 2001:db8::/32)`,
    );
  }
  return prefix === undefined ? plain.toLowerCase() : `${plain.toLowerCase()}/${prefix}`;
}

/** The allow-list as stored: each entry checked and canonical, duplicates dropped; 400 naming a bad one. */
export function checkAllowList(entries: readonly string[]): string[] {
  const list = [...new Set(entries.filter((e) => e.trim() !== '').map(checkEntry))];
  if (list.length > MAX_ALLOW_LIST_ENTRIES) {
    throw badRequest(`an IP allow-list holds at most ${MAX_ALLOW_LIST_ENTRIES} entries`);
  }
  return list;
}

/** Splits a list written one entry per line or separated by commas or spaces. */
export function splitAllowList(text: string): string[] {
  return text.split(/[\s,]+/).filter((e) => e !== '');
}

const compiled = new WeakMap<readonly string[], BlockList>();

function blockListOf(list: readonly string[]): BlockList {
  let blocks = compiled.get(list);
  if (blocks === undefined) {
    blocks = new BlockList();
    for (const entry of list) {
      const [address = '', bits] = entry.split('/');
      const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) blocks.addAddress(address, type);
      else blocks.addSubnet(address, Number(bits), type);
    }
    compiled.set(list, blocks);
  }
  return blocks;
}

/** Whether a request from `address` may use the organisation's API key. */
export function addressAllowed(list: readonly string[], address: string): boolean {
  if (list.length === 0) return true;
  const plain = plainAddress(address);
  const family = isIP(plain);
  if (family === 0) return false;
  return blockListOf(list).check(plain, family === 6 ? 'ipv6' : 'ipv4');
}

/** A call the allow-list refused: who, from where, and what it asked for. */
export interface RefusedCall {
  readonly organisationId: string;
  readonly address: string;
  readonly method: string;
  readonly path: string;
  readonly at: Date;
}

/**
 * Tells the organisation why its key was refused (the wire answers exactly as for a bad key):
 * an audit entry, which the portal's Activity page shows its admins.
 */
export async function auditRefusal(db: Executor, call: RefusedCall): Promise<void> {
  await audit(db, apiActor(call.organisationId, call.address), {
    action: 'api_key.address_refused',
    organisationId: call.organisationId,
    at: call.at,
    details: { address: call.address, method: call.method, path: call.path },
  });
}
