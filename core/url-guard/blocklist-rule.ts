import type { BlocklistFile } from './blocklist-file';
import { bareHostname } from './host';
import { block, pass, type UrlRule } from './rule';

/** Refuses a host that is on the blocklist file, or whose parent domain is. */
export function createBlocklistRule(file: Pick<BlocklistFile, 'domains'>): UrlRule {
  return {
    name: 'blocklist',
    check: (url) =>
      Promise.resolve(
        file.domains.covers(bareHostname(url)) ? block('the host is on the blocklist') : pass,
      ),
  };
}
