/** Host-name helpers shared by the rules: every comparison goes through these. */

/** The URL's host name without the trailing dot (`evil.example.` is the same host). */
export function bareHostname(url: URL): string {
  return url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
}

/** What an operator writes as a host: `host` or `host:port`, as the URL parser reads it. */
export interface HostText {
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

/** The port the URL reaches: the explicit one, else the scheme's default. */
export function effectivePort(url: URL): string {
  if (url.port !== '') return url.port;
  return url.protocol === 'https:' ? '443' : '80';
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** True for an IPv4 or bracketed IPv6 host (as the WHATWG parser prints them). */
export function isIpHostname(hostname: string): boolean {
  return hostname.startsWith('[') || IPV4.test(hostname);
}

/** The host and each parent domain, most specific first (an IP address has no parents). */
export function hostAndParents(hostname: string): string[] {
  if (isIpHostname(hostname)) return [hostname];
  const labels = hostname.split('.');
  return labels.map((_, index) => labels.slice(index).join('.'));
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
