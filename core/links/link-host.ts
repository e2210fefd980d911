import { domainToASCII } from 'node:url';
import type { LinkScheme } from '../ports/identity-store';
import type { LinkRecord, LinkStore } from '../ports/link-store';
import { boundedMemo } from '../caches/bounded-memo';
import { DEFAULT_PORTS, withoutTrailingDot } from '../url-guard/host';

/**
 * A link domain, as stored, that a Host may name; with `scheme`, only a link of that scheme
 * answers there (the Host names the domain through that scheme's default port).
 */
export interface DomainCandidate {
  domain: string;
  scheme?: LinkScheme;
}

/** The scheme each default port belongs to. */
const SCHEME_OF_DEFAULT_PORT: Readonly<Record<string, LinkScheme>> = {
  [DEFAULT_PORTS.https]: 'https',
  [DEFAULT_PORTS.http]: 'http',
};

/** A name of printable ASCII needs no conversion but to lower case. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Hosts whose candidates are kept, at most: every follow asks for its Host's, and a service
 * answers a few link domains.
 */
const MAX_HOSTS_KEPT = 1000;

/**
 * The stored link domains a Host may name, most specific first, read as a browser means the Host:
 * in any case, an internationalised name as its punycode (`Bücher.link` is
 * `xn--bcher-kva.link`), a trailing dot on the name ignored (`acme.link.`), and a domain one with
 * its scheme's default port:
 * - `name:port`: that domain; when the port is a scheme's default one (443, 80), then `name` too,
 *   for links of that scheme (`acme.link:443` is `acme.link` for an https domain);
 * - `name`: that domain; then `name:443` for https links and `name:80` for http ones, which is how
 *   provisioning stored such domains before it dropped the default port.
 * Worked out in memory, without the store; null when the text is no Host a client sends (a colon
 * left after the name, such as a dot after the port, or a name that is no domain name).
 */
export const domainCandidates: (host: string) => readonly DomainCandidate[] | null = boundedMemo(
  MAX_HOSTS_KEPT,
  candidatesOf,
);

/** domainCandidates' work, once per Host kept. */

function candidatesOf(host: string): readonly DomainCandidate[] | null {
  const match = /^(.*?)(?::(\d+))?$/.exec(host);
  const written = match?.[1] ?? host;
  if (written.slice(written.lastIndexOf(']') + 1).includes(':')) return null;
  const name = asciiName(withoutTrailingDot(written));
  if (name === null) return null;
  const port = match?.[2] ?? '';
  if (port !== '') {
    const scheme = SCHEME_OF_DEFAULT_PORT[port];
    const ported = { domain: `${name}:${port}` };
    return frozen(scheme ? [ported, { domain: name, scheme }] : [ported]);
  }
  return frozen([
    { domain: name },
    { domain: `${name}:${DEFAULT_PORTS.https}`, scheme: 'https' },
    { domain: `${name}:${DEFAULT_PORTS.http}`, scheme: 'http' },
  ]);
}

/** Kept candidates are shared by every follow of their Host: nobody may change them. */
function frozen(candidates: DomainCandidate[]): readonly DomainCandidate[] {
  for (const candidate of candidates) Object.freeze(candidate);
  return Object.freeze(candidates);
}

/** The name in lower case, an internationalised one in punycode; null when it is none. */
function asciiName(name: string): string | null {
  if (PRINTABLE_ASCII.test(name)) return name.toLowerCase();
  // UTS 46 as browsers apply it: case folded, compatibility forms mapped, then punycode.
  const ascii = domainToASCII(name);
  return ascii === '' ? null : ascii;
}

/**
 * The link `alias` names under the first of `domains` (domainCandidates) holding one of the
 * domain's scheme: what a follow of that Host finds, read from the store candidate by candidate.
 */
export async function findLinkUnderHost(
  links: LinkStore,
  domains: readonly DomainCandidate[],
  alias: string,
): Promise<LinkRecord | null> {
  for (const { domain, scheme } of domains) {
    const link = await links.findByAlias(domain, alias);
    if (link && (scheme === undefined || link.scheme === scheme)) return link;
  }
  return null;
}
