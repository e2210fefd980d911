import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { bareHostname } from './host';
import { block, pass, type UrlRule } from './rule';

/**
 * The address classes refused, by ipaddr.js's range names (its tables, not a list of ours): every
 * class that reaches the service's own side of the network, or no public host at all.
 */
const REFUSED_RANGES: Readonly<Record<string, string>> = {
  loopback: 'a loopback address',
  private: 'a private address',
  linkLocal: 'a link-local address',
  uniqueLocal: 'a unique-local address',
  // fec0::/10, IPv6's first private range: deprecated, still routed inside some networks.
  deprecatedSiteLocal: 'a site-local address',
  unspecified: 'an unspecified address',
  // 100.64.0.0/10: shared by a provider's customers, and where some clouds put their metadata.
  carrierGradeNat: 'a carrier-grade NAT address',
  // IPv4's reserved, documentation and benchmarking blocks, 240.0.0.0/4; IPv6's alike.
  reserved: 'a reserved address',
  benchmarking: 'a reserved address',
  discard: 'a reserved address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
};

/**
 * Instance-metadata endpoints of the large clouds: AWS, GCP and Azure's address (and AWS's IPv6
 * one), Alibaba's (inside carrier-grade NAT), and the names that reach them without an address,
 * as the clouds' own resolvers answer them inside an instance: GCP's `metadata.google.internal`,
 * `metadata.goog` and single label `metadata`, AWS's `instance-data` and
 * `instance-data.ec2.internal`, Tencent Cloud's `metadata.tencentyun.com`. A public resolver
 * does not know them, so only this list refuses them. Named apart from their class for the
 * message.
 */
const CLOUD_METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);
const CLOUD_METADATA_NAMES = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
]);

const REFUSED = 'private targets are refused (ALLOW_PRIVATE_TARGETS=1 allows them)';

/**
 * Refuses URLs aimed inside a network: loopback, private (RFC 1918), link-local, unique-local,
 * site-local, carrier-grade NAT, unspecified, reserved, broadcast and multicast addresses, in
 * every IPv6 form that carries an IPv4 address, cloud instance-metadata addresses and names, and
 * `localhost` / `*.localhost`. A short link to one of them serves server-side request forgery
 * through every service that follows redirects. Only literal hosts and these names are judged; a
 * public name that resolves to a private address is not (that needs DNS at check time and at use
 * time alike).
 */
export const privateTargetRule: UrlRule = {
  name: 'private-target',
  check(url) {
    const what = privateTargetKind(bareHostname(url));
    return Promise.resolve(what === null ? pass : block(`the host is ${what}: ${REFUSED}`));
  },
};

/** What kind of private target `hostname` (as bareHostname gives it) is; null for none. */
function privateTargetKind(hostname: string): string | null {
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) return 'a localhost name';
  if (CLOUD_METADATA_NAMES.has(hostname)) return 'a cloud metadata name';
  const literal = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  // isIP first: ipaddr.isValid throws and catches an Error for every name, which costs a stack
  // trace per create. (The URL parser has already turned every IPv4 spelling into dotted decimal.)
  if (isIP(literal) === 0) return null;
  const address = embeddedIPv4(ipaddr.process(literal));
  if (CLOUD_METADATA_ADDRESSES.has(address.toString())) return 'a cloud metadata address';
  return REFUSED_RANGES[address.range()] ?? null;
}

/**
 * The IPv4 address an IPv6 address carries, else itself: IPv4-mapped (`::ffff:a.b.c.d`, which
 * ipaddr.process already unwraps), IPv4-translated (`::ffff:0:a.b.c.d`), IPv4-compatible
 * (`::a.b.c.d`, deprecated but still routed by some stacks to the IPv4 address), NAT64
 * (64:ff9b::/96) and 6to4 (2002::/16). Judged as IPv4, each falls in the IPv4 address's class.
 */
function embeddedIPv4(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  if (address.kind() !== 'ipv6') return address;
  const bytes = address.toByteArray();
  const range = address.range();
  if (range === 'rfc6052' || range === 'rfc6145') return ipaddr.fromByteArray(bytes.slice(12, 16));
  if (range === '6to4') return ipaddr.fromByteArray(bytes.slice(2, 6));
  // ::/96 holds the IPv4-compatible forms; `::` and `::1` are IPv6's own (unspecified, loopback).
  if (range !== 'unspecified' && range !== 'loopback' && bytes.slice(0, 12).every((b) => b === 0)) {
    return ipaddr.fromByteArray(bytes.slice(12, 16));
  }
  return address;
}
