import { normalizeDomainEntry } from './host';

type BlocklistParse = { ok: true; domains: string[] } | { ok: false; problem: string };

const MAX_ECHO = 80;

/**
 * The blocklist file format: one domain (or IP address) per line; `#` starts a comment (a whole
 * line or the end of one); blank lines are ignored; `*.` before a domain is allowed and changes
 * nothing (a listed domain always covers its subdomains). One line that is not a domain makes the
 * whole file invalid, so a half-written or wrong file never replaces a good list.
 */
export function parseBlocklist(text: string): BlocklistParse {
  const domains: string[] = [];
  const lines = text.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    const entry = line.replace(/#.*$/, '').trim();
    if (entry === '') continue;
    const domain = normalizeDomainEntry(entry);
    if (domain === null) {
      const shown = entry.length > MAX_ECHO ? `${entry.slice(0, MAX_ECHO)}...` : entry;
      return { ok: false, problem: `line ${index + 1} is not a domain: ${JSON.stringify(shown)}` };
    }
    domains.push(domain);
  }
  return { ok: true, domains };
}
