import { MAX_HOST_LENGTH } from '../links/long-url';
import type { LinkScheme } from '../ports/identity-store';
import { DEFAULT_PORTS, parseHostText, withoutTrailingDot, writtenPort } from '../url-guard/host';

/** Whether `value` is a link domain's scheme: what every short URL of the domain starts with. */
export function isLinkScheme(value: unknown): value is LinkScheme {
  return value === 'https' || value === 'http';
}

/**
 * Normalises a link domain (`host` or `host:port`) with the WHATWG URL parser: lower case,
 * internationalised names in punycode, no trailing dot; so `Acme.Link.`, `acme.link` and
 * `ACME.LINK` are one domain, and `bücher.link` is `xn--bcher-kva.link`. Null when the text is
 * anything else (a path, credentials, a scheme, an empty label, port 0), or a host longer than a
 * DNS name can be.
 */
export function normalizeLinkDomain(text: string): string | null {
  const host = parseHostText(text);
  if (!host) return null;
  const hostname = withoutTrailingDot(host.url.hostname);
  // Longer than a DNS name can be, no request could reach it; and LMDB keys the domain index by
  // it, where a key that long fails after the organization itself was written.
  if (hostname === '' || hostname.length > MAX_HOST_LENGTH) return null;
  // The URL parser takes an empty label (`x..link`) and port 0; neither names a host a browser
  // can reach, and every short URL of the domain would carry it.
  if (hostname.split('.').includes('') || host.url.port === '0') return null;
  // A domain written with http's default port (":80") keeps it here: it is another host for an
  // https domain; withoutDefaultPort drops it from an http one.
  const port = writtenPort(host);
  return port === '' ? hostname : `${hostname}:${port}`;
}

/**
 * A normalised link domain without its scheme's default port (`acme.link:443` for https,
 * `acme.link:80` for http): browsers and HTTP clients send such a domain's `Host` without the
 * port, so a domain stored with it answered 404 for every link. Another port stays.
 */
export function withoutDefaultPort(domain: string, scheme: LinkScheme): string {
  const suffix = `:${DEFAULT_PORTS[scheme]}`;
  return domain.endsWith(suffix) ? domain.slice(0, -suffix.length) : domain;
}
