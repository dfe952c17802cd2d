import ipaddr from 'ipaddr.js';

/** Four decimal octets without leading zeros (0-255 each). Linear: no nested or overlapping quantifiers. */
const CANONICAL_IPV4 =
  /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/**
 * The key a client address is counted under. IPv6 clients are counted per /64: one subscriber usually
 * holds a whole /64, so counting single addresses would let one client mint 2^64 fresh limits.
 * IPv4-mapped IPv6 (`::ffff:1.2.3.4`) counts as the IPv4 address.
 */
export function clientKey(address: string | undefined): string {
  // Most addresses are already canonical IPv4 (four decimal octets, no leading zeros): they are their key.
  if (address !== undefined && CANONICAL_IPV4.test(address)) return address;
  if (address === undefined || !ipaddr.isValid(address)) return 'unknown';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const prefix = v6.parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(':')}::/64`;
}
