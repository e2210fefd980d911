import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { bareHostname } from './host';
import { block, pass, type UrlRule } from './rule';

/** The address classes (ipaddr.js range names) that reach the service's own side of the network. */
const PRIVATE_RANGES: Readonly<Record<string, string>> = {
  loopback: 'a loopback address',
  private: 'a private address',
  linkLocal: 'a link-local address',
  uniqueLocal: 'a unique-local address',
  unspecified: 'an unspecified address',
};

/** Instance-metadata endpoints of the large clouds (AWS, GCP, Azure; AWS's IPv6 one). */
const CLOUD_METADATA = new Set(['169.254.169.254', 'fd00:ec2::254']);

const REFUSED = 'private targets are refused (ALLOW_PRIVATE_TARGETS=1 allows them)';

/**
 * Refuses URLs aimed inside a network: loopback, private (RFC 1918), link-local, unique-local and
 * unspecified addresses, cloud instance-metadata addresses, and `localhost` / `*.localhost`. A
 * short link to one of them serves server-side request forgery through every service that follows
 * redirects. Only literal hosts are judged; a public name that resolves to a private address is
 * not (that needs DNS at check time and at use time alike).
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
  const literal = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  // isIP first: ipaddr.isValid throws and catches an Error for every name, which costs a stack
  // trace per create. (The URL parser has already turned every IPv4 spelling into dotted decimal.)
  if (isIP(literal) === 0) return null;
  const address = embeddedIPv4(ipaddr.process(literal));
  if (CLOUD_METADATA.has(address.toString())) return 'a cloud metadata address';
  return PRIVATE_RANGES[address.range()] ?? null;
}

/** The IPv4 address a NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address carries, else itself. */
function embeddedIPv4(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  if (address.kind() !== 'ipv6') return address;
  const bytes = address.toByteArray();
  const range = address.range();
  if (range === 'rfc6052') return ipaddr.fromByteArray(bytes.slice(12, 16));
  if (range === '6to4') return ipaddr.fromByteArray(bytes.slice(2, 6));
  return address;
}
