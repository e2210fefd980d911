import { domainToUnicode } from 'node:url';
import { bareHostname, isIpHostname } from './host';
import { judgeLabel } from './label-scripts';
import { block, pass, type UrlRule } from './rule';

/**
 * Refuses a host with a label that browsers would show as punycode because it mixes scripts
 * (Cyrillic `а` among Latin letters in `pаypal.com`) or uses a script not meant for names.
 */
export const mixedScriptRule: UrlRule = {
  name: 'mixed-script',
  check(url) {
    const hostname = bareHostname(url);
    if (isIpHostname(hostname)) return Promise.resolve(pass);
    // The parser keeps hosts in punycode; an undecodable label is already refused by it.
    const unicode = domainToUnicode(hostname) || hostname;
    for (const label of unicode.split('.')) {
      const verdict = judgeLabel(label);
      if (verdict.safe) continue;
      return Promise.resolve(
        verdict.kind === 'mixed'
          ? block(`the host mixes ${listOf(verdict.scripts)} letters`)
          : block('the host uses letters of a script that browsers show as punycode'),
      );
    }
    return Promise.resolve(pass);
  },
};

function listOf(items: readonly string[]): string {
  if (items.length <= 2) return items.join(' and ');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1) as string}`;
}
