import type { LmdbDatabases } from './databases';

/**
 * Fills the link-domain index for organizations saved before it existed (a store written by the
 * first LMDB release), in one write transaction at start-up. A domain already indexed keeps its
 * holder; returns how many entries were added.
 */
export async function indexLinkDomains(dbs: LmdbDatabases): Promise<number> {
  const { organizations, organizationsByDomain } = dbs;
  return organizations.transaction(() => {
    let added = 0;
    for (const { key, value } of organizations.getRange()) {
      if (organizationsByDomain.get(value.domain) !== undefined) continue;
      void organizationsByDomain.put(value.domain, key);
      added += 1;
    }
    return added;
  });
}
