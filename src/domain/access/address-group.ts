import ipaddr from 'ipaddr.js';

// Whom a per-address limit counts (rate limits, failed authentications, the portal's sign-in
// throttle): an IPv4 client by its address, an IPv6 client by the network of its address's
// first `ipv6Prefix` bits (RATE_LIMIT_IPV6_PREFIX, a /64 by default). One customer usually
// holds a whole /64 and may take any address in it, so counting each IPv6 address apart would
// give one client 2^64 budgets. An IPv4 address written in IPv6 (::ffff:192.0.2.1) counts as
// that IPv4 address. Parsing is ipaddr.js's (the library Fastify's proxy handling uses).

/** Groups already worked out, by prefix and address: a client sends from the same few. */
const known = new Map<string, string>();
const KNOWN_MAX = 10_000;

/** The name of the group `address` is counted in; a string that is no IP address is its own. */
export function addressGroup(address: string, ipv6Prefix: number): string {
  // IPv4, as Fastify gives it, is its own group and needs no parsing.
  if (!address.includes(':')) return address;
  const id = `${ipv6Prefix} ${address}`;
  let group = known.get(id);
  if (group === undefined) {
    group = networkOf(address, ipv6Prefix);
    if (known.size >= KNOWN_MAX) known.clear();
    known.set(id, group);
  }
  return group;
}

function networkOf(address: string, ipv6Prefix: number): string {
  let ip: ipaddr.IPv6;
  try {
    // The IPv6 parser itself: ipaddr.parse would try IPv4 first, at twice the cost.
    ip = ipaddr.IPv6.parse(address);
  } catch {
    return address;
  }
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address().toString();
  // The network: the first `ipv6Prefix` bits of the eight 16-bit groups, the rest zero.
  const groups = ip.parts.map((part, i) => {
    const kept = Math.min(16, Math.max(0, ipv6Prefix - i * 16));
    return (kept === 0 ? 0 : part & (0xffff << (16 - kept)) & 0xffff).toString(16);
  });
  return `${groups.join(':')}/${ipv6Prefix}`;
}
