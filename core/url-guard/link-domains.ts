import { bareHostname, DEFAULT_PORTS, effectivePort, parseHostText, writtenPort } from './host';

interface LinkDomain {
  hostname: string;
  /** null: the domain names no port, so it is served on the default ports (80 and 443). */
  port: string | null;
}

const DEFAULT_PORT_SET: ReadonlySet<string> = new Set(Object.values(DEFAULT_PORTS));

/**
 * The service's own link domains (`host` or `host:port`), matched against a URL's host name and
 * the port it reaches: `acme.link` covers `http://acme.link/` and `https://acme.link:443/`,
 * `localhost:8080` covers only port 8080 of localhost.
 */
export class LinkDomains {
  private readonly byHostname = new Map<string, LinkDomain[]>();

  constructor(domains: Iterable<string>) {
    for (const domain of domains) {
      const parsed = parseLinkDomain(domain);
      if (!parsed) continue;
      const list = this.byHostname.get(parsed.hostname) ?? [];
      list.push(parsed);
      this.byHostname.set(parsed.hostname, list);
    }
  }

  get size(): number {
    return this.byHostname.size;
  }

  includes(url: URL): boolean {
    const candidates = this.byHostname.get(bareHostname(url));
    if (!candidates) return false;
    const port = effectivePort(url);
    return candidates.some((domain) =>
      domain.port === null ? DEFAULT_PORT_SET.has(port) : domain.port === port,
    );
  }
}

function parseLinkDomain(domain: string): LinkDomain | null {
  const host = parseHostText(domain);
  if (!host) return null;
  const port = writtenPort(host);
  return { hostname: bareHostname(host.url), port: port === '' ? null : port };
}
