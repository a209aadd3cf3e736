import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { Config } from '../config.js';
import { ConfigError } from '../config.js';
import { badRequest } from '../domain/errors/error-codes.js';

// The SSRF guard of production mode. A callback URL is checked when it is saved and again on
// every connection: the sender's DNS lookup goes through `guardedLookup`, so the socket connects
// to exactly the address that was checked (no second resolution an attacker could rebind).

type Family = 'ipv4' | 'ipv6';
type Range = readonly [string, number, Family];

const METADATA = 'a cloud metadata address';

const CATEGORIES: readonly (readonly [string, readonly Range[]])[] = [
  [
    METADATA,
    [
      ['169.254.169.254', 32, 'ipv4'],
      ['100.100.100.200', 32, 'ipv4'],
      ['fd00:ec2::254', 128, 'ipv6'],
      // Container credentials: AWS ECS's task endpoint and EKS Pod Identity's agent.
      ['169.254.170.2', 32, 'ipv4'],
      ['169.254.170.23', 32, 'ipv4'],
      ['fd00:ec2::23', 128, 'ipv6'],
    ],
  ],
  [
    'a loopback address',
    [
      ['127.0.0.0', 8, 'ipv4'],
      ['::1', 128, 'ipv6'],
    ],
  ],
  [
    'an unspecified address',
    [
      ['0.0.0.0', 8, 'ipv4'],
      ['::', 128, 'ipv6'],
    ],
  ],
  [
    'a private address',
    [
      ['10.0.0.0', 8, 'ipv4'],
      ['172.16.0.0', 12, 'ipv4'],
      ['192.168.0.0', 16, 'ipv4'],
      ['fc00::', 7, 'ipv6'],
      ['fec0::', 10, 'ipv6'],
    ],
  ],
  ['a carrier-grade NAT address', [['100.64.0.0', 10, 'ipv4']]],
  [
    'a link-local address',
    [
      ['169.254.0.0', 16, 'ipv4'],
      ['fe80::', 10, 'ipv6'],
    ],
  ],
  [
    'a multicast address',
    [
      ['224.0.0.0', 4, 'ipv4'],
      ['ff00::', 8, 'ipv6'],
    ],
  ],
  [
    'a reserved address',
    [
      ['192.0.0.0', 24, 'ipv4'],
      ['192.0.2.0', 24, 'ipv4'],
      ['198.18.0.0', 15, 'ipv4'],
      ['198.51.100.0', 24, 'ipv4'],
      ['203.0.113.0', 24, 'ipv4'],
      ['240.0.0.0', 4, 'ipv4'],
      ['100::', 64, 'ipv6'],
      ['2001:db8::', 32, 'ipv6'],
    ],
  ],
  // Translation prefixes carry an IPv4 address inside; they could reach any range above.
  [
    'an IPv4-embedding address',
    [
      ['::', 96, 'ipv6'],
      ['64:ff9b::', 96, 'ipv6'],
      ['64:ff9b:1::', 48, 'ipv6'],
      ['2001::', 32, 'ipv6'],
      ['2002::', 16, 'ipv6'],
    ],
  ],
];

function blockListOf(ranges: readonly Range[]): BlockList {
  const list = new BlockList();
  for (const [network, prefix, family] of ranges) list.addSubnet(network, prefix, family);
  return list;
}

function parseCidr(cidr: string): Range {
  const [network = '', prefixText = ''] = cidr.split('/');
  const version = isIP(network);
  const prefix = Number(prefixText);
  if (
    version === 0 ||
    !Number.isInteger(prefix) ||
    prefix < 0 ||
    prefix > (version === 4 ? 32 : 128)
  ) {
    throw new ConfigError('CALLBACK_ALLOW_CIDRS', `"${cidr}" is not a CIDR range`);
  }
  return [network, prefix, version === 4 ? 'ipv4' : 'ipv6'];
}

/** Strips the brackets of an IPv6 URL host. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export class AddressGuard {
  private readonly categories: readonly (readonly [string, BlockList])[];
  private readonly allowed: BlockList;

  constructor(allowCidrs: readonly string[] = []) {
    this.categories = CATEGORIES.map(([name, ranges]) => [name, blockListOf(ranges)] as const);
    this.allowed = blockListOf(allowCidrs.map(parseCidr));
  }

  /**
   * Why an address may not receive callbacks, or undefined when it may. IPv4-mapped IPv6
   * addresses (::ffff:127.0.0.1) are judged by the IPv4 address inside (BlockList does that).
   */
  refusal(address: string): string | undefined {
    if (isIP(address) === 0) return `${address} is not an IP address`;
    const category = this.category(address);
    return category === undefined ? undefined : `${address} is ${category}`;
  }

  /** The refused range an IP address falls in ("a private address"), or undefined. */
  category(address: string): string | undefined {
    const version = isIP(address);
    if (version === 0) return 'not an IP address';
    const family: Family = version === 4 ? 'ipv4' : 'ipv6';
    const refused = this.categories.find(([, list]) => list.check(address, family))?.[0];
    // CALLBACK_ALLOW_CIDRS never opens a cloud metadata address: a range wide enough for
    // receivers (a CGNAT overlay's 100.64.0.0/10, link-local 169.254.0.0/16) holds one, and a
    // callback there would hand the instance's cloud credentials to whoever set the URL.
    if (refused === METADATA || !this.allowed.check(address, family)) return refused;
    return undefined;
  }
}

export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });

/** The guard of production mode; simulator mode delivers to local receivers and has none. */
export function guardFor(config: Config): AddressGuard | undefined {
  return config.mode === 'production' ? new AddressGuard(config.callbackAllowCidrs) : undefined;
}

/**
 * The save-time check (deps.checkCallbackUrl): in production mode the URL must be https and every
 * address its host resolves to must pass the guard. Throws 400 naming callbackUrl otherwise.
 */
export function callbackUrlCheck(
  config: Config,
  resolver: Resolver = systemResolver,
): ((url: string) => Promise<void>) | undefined {
  const guard = guardFor(config);
  if (guard === undefined) return undefined;
  return async (raw) => {
    const url = new URL(raw);
    if (url.protocol !== 'https:')
      throw badRequest('callbackUrl must be an https URL in production mode');
    const host = hostOf(url);
    let addresses: readonly string[];
    if (isIP(host) !== 0) addresses = [host];
    else {
      try {
        addresses = (await resolver(host)).map((a) => a.address);
      } catch {
        throw badRequest(`callbackUrl host "${host}" does not resolve`);
      }
    }
    for (const address of addresses) {
      const category = guard.category(address);
      if (category !== undefined) {
        const subject =
          address === host
            ? `${host} is ${category}`
            : `${host} resolves to ${address}, ${category}`;
        throw badRequest(
          `callbackUrl is refused: ${subject}; callbacks are only sent to public addresses, unless the service's operator allows a private range`,
        );
      }
    }
  };
}

export class AddressRefusedError extends Error {
  readonly code = 'ECALLBACKREFUSED';
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http.request: resolves, refuses the host if any address fails the guard, and
 * hands the checked addresses to the socket, which connects to one of them.
 */
export function guardedLookup(guard: AddressGuard, resolver: Resolver = systemResolver) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolver(hostname).then(
      (found) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
        const addresses = found.filter((a) => wanted === undefined || a.family === wanted);
        for (const a of addresses) {
          const why = guard.refusal(a.address);
          if (why !== undefined) {
            callback(
              new AddressRefusedError(`refused to connect: ${hostname} resolves to ${why}`),
              [],
            );
            return;
          }
        }
        const first = addresses[0];
        if (first === undefined) {
          const error: NodeJS.ErrnoException = new Error(`${hostname} has no usable address`);
          error.code = 'ENOTFOUND';
          callback(error, []);
          return;
        }
        if (options.all === true) callback(null, [...addresses]);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}
