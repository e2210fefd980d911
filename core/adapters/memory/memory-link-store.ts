import type { InsertOutcome, LinkRecord, LinkStore } from '../../ports/link-store';

/** The embedded link store. Insert is atomic because the check and the write share one tick. */
export class MemoryLinkStore implements LinkStore {
  private readonly byDomain = new Map<string, Map<string, LinkRecord>>();

  insert(link: LinkRecord): Promise<InsertOutcome> {
    let aliases = this.byDomain.get(link.domain);
    if (!aliases) {
      aliases = new Map();
      this.byDomain.set(link.domain, aliases);
    }
    if (aliases.has(link.alias)) return Promise.resolve('alias_taken');
    aliases.set(link.alias, { ...link });
    return Promise.resolve('inserted');
  }

  findByAlias(domain: string, alias: string): Promise<LinkRecord | null> {
    return Promise.resolve(this.byDomain.get(domain)?.get(alias) ?? null);
  }

  /** Number of links held (for tests and memory benchmarks). */
  get size(): number {
    let total = 0;
    for (const aliases of this.byDomain.values()) total += aliases.size;
    return total;
  }
}
