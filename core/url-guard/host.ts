import ipaddr from 'ipaddr.js';

/** Host-name helpers shared by the rules: every comparison goes through these. */

/** `evil.example.` and `evil.example` name the same host. */
export function withoutTrailingDot(hostname: string): string {
  return hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
}

/**
 * A host name as the rules compare it: without the trailing dot (`evil.example.` is the same
 * host), and an IPv4-mapped IPv6 address (`[::ffff:198.51.100.7]`, `[::ffff:c633:6407]`) as
 * the IPv4 address it reaches, so a listed IPv4 address cannot be dressed up as IPv6.
 */
function canonicalHostname(hostname: string): string {
  const host = withoutTrailingDot(hostname);
  if (host.startsWith('[') && host.endsWith(']')) {
    const inner = host.slice(1, -1);
    if (ipaddr.IPv6.isValid(inner)) {
      const address = ipaddr.IPv6.parse(inner);
      if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString();
    }
  }
  return host;
}

/** The URL's host name in the form the rules compare (see canonicalHostname). */
export function bareHostname(url: URL): string {
  return canonicalHostname(url.hostname);
}

/** What an operator writes as a host: `host` or `host:port`, as the URL parser reads it. */
interface HostText {
  /** The text, trimmed and in lower case. */
  text: string;
  /** `http://<text>/` parsed: its `hostname` is in punycode, its `port` '' when none or ":80". */
  url: URL;
}

/**
 * Every configured or provisioned domain (link domains, shortener and blocklist entries) is read
 * here: null when the text is anything but a host and an optional port (a path, a query,
 * credentials, a scheme, spaces).
 */
export function parseHostText(text: string): HostText | null {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === '' || /[/?#@\s\\]/.test(trimmed)) return null;
  const url = URL.parse(`http://${trimmed}/`);
  if (!url || url.hostname === '') return null;
  return { text: trimmed, url };
}

/** The port each scheme of a URL or link domain is served on by default. */
export const DEFAULT_PORTS = { http: '80', https: '443' } as const;

/**
 * The port a host text names, '' when none. The URL parser drops ":80" (http's default), so a
 * text written with it (`:80`, `:080`) is read for it: such a domain still names port 80.
 */
export function writtenPort(host: HostText): string {
  if (host.url.port !== '') return host.url.port;
  return /:0*80$/.test(host.text) ? DEFAULT_PORTS.http : '';
}

/** The port the URL reaches: the explicit one, else the scheme's default. */
export function effectivePort(url: URL): string {
  if (url.port !== '') return url.port;
  return url.protocol === 'https:' ? DEFAULT_PORTS.https : DEFAULT_PORTS.http;
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** True for an IPv4 or bracketed IPv6 host (as the WHATWG parser prints them). */
export function isIpHostname(hostname: string): boolean {
  return hostname.startsWith('[') || IPV4.test(hostname);
}

/**
 * Whether `test` holds for the host or one of its parent domains, most specific first (an IP
 * address has no parents). One pass over the name: each candidate is a suffix found from the
 * previous dot, never a re-joined list of labels.
 */
export function someHostOrParent(hostname: string, test: (candidate: string) => boolean): boolean {
  if (isIpHostname(hostname)) return test(hostname);
  let start = 0;
  for (;;) {
    if (test(hostname.slice(start))) return true;
    const dot = hostname.indexOf('.', start);
    if (dot === -1) return false;
    start = dot + 1;
  }
}

/**
 * A configured domain (`evil.example`, `*.evil.example`, `Bücher.example`) in the form the URL
 * parser gives host names (lower case, punycode, no trailing dot); null when it is not a bare
 * domain or IP address (a port, a path, credentials or a scheme make it invalid).
 */
export function normalizeDomainEntry(text: string): string | null {
  let entry = text.trim().toLowerCase();
  if (entry.startsWith('*.')) entry = entry.slice(2);
  if (entry.endsWith('.')) entry = entry.slice(0, -1);
  // No port at all, not even an empty one (a bracketed IPv6 address holds colons of its own).
  if (entry.replace(/^\[.*\]$/, '').includes(':')) return null;
  const host = parseHostText(entry);
  return host && host.url.port === '' ? bareHostname(host.url) : null;
}
