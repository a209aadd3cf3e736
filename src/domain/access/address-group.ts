import ipaddr from 'ipaddr.js';

// Whom a per-address limit counts (rate limits, failed authentications, the portal's sign-in
// throttle): an IPv4 client by its address, an IPv6 client by the network of its address's
// first `ipv6Prefix` bits (RATE_LIMIT_IPV6_PREFIX, a /64 by default). One customer usually
// holds a whole /64 and may take any address in it, so counting each IPv6 address apart would
// give one client 2^64 budgets. An IPv4 address written in IPv6 (::ffff:192.0.2.1) counts as
// that IPv4 address. Parsing is ipaddr.js's (the library Fastify's proxy handling uses).

/** The name of the group `address` is counted in; a string that is no IP address is its own. */
export function addressGroup(address: string, ipv6Prefix: number): string {
  if (!address.includes(':') || !ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  const bytes = ip.toByteArray();
  for (let bit = ipv6Prefix; bit < 128; bit += 1) {
    const index = bit >> 3;
    bytes[index] = (bytes[index] ?? 0) & ~(0x80 >> (bit & 7));
  }
  const network = ipaddr.fromByteArray(bytes) as ipaddr.IPv6;
  return `${network.toRFC5952String()}/${ipv6Prefix}`;
}
