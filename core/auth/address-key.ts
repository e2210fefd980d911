import ipaddr from 'ipaddr.js';

/**
 * IPv6 clients are counted by their /64: a subscriber is usually handed a whole /64 (often a
 * /56 or /48) and may use any address in it, so counting single IPv6 addresses would give one
 * client 2^64 budgets.
 */
const IPV6_CLIENT_PREFIX_LENGTH = 64;

/**
 * An IPv4 address in the form a socket gives it (no leading zeros): its own key, as ipaddr.js
 * would write it, known without parsing it (every follow computes its key).
 */
const PLAIN_IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/**
 * The key a per-address budget (failed token checks, unknown aliases followed) counts `address`
 * under: an IPv4 address as it is (an
 * IPv4-mapped IPv6 address too, `::ffff:198.51.100.7` being the same client as `198.51.100.7`),
 * an IPv6 address as its /64 network (`2001:db8:1:2::/64`). Something that is not an IP address
 * (a Unix socket path) is kept as it is.
 */
export function addressKeyOf(address: string): string {
  if (PLAIN_IPV4.test(address)) return address;
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const bytes = parsed
    .toByteArray()
    .map((byte, index) => (index < IPV6_CLIENT_PREFIX_LENGTH / 8 ? byte : 0));
  return `${ipaddr.fromByteArray(bytes).toString()}/${IPV6_CLIENT_PREFIX_LENGTH}`;
}
