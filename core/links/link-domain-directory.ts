import type { IdentityStore } from '../ports/identity-store';
import type { LinkStore } from '../ports/link-store';
import type { Logger } from '../ports/logger';
import type { DomainCandidate } from './link-host';

/** How long a loaded directory is trusted before a follow reloads it (LINK_DOMAINS_REFRESH_SECONDS). */
export const DEFAULT_LINK_DOMAINS_REFRESH_SECONDS = 10;

interface LinkDomainDirectoryOptions {
  /** How long a loaded list is used before the next follow reloads it, meanwhile still using it. */
  refreshMs: number;
  logger: Logger;
  /** Milliseconds, for the refresh period (tests pass their own). */
  now?: () => number;
}

/**
 * Where the directory reads: the domains links are stored under (`links.listDomains`, which on
 * MongoDB goes to every shard), read once; and the organizations' domains
 * (`identities.listLinkDomains`, a small collection), read at every reload.
 */
interface LinkDomainSources {
  links: Pick<LinkStore, 'listDomains'>;
  identities: Pick<IdentityStore, 'listLinkDomains'>;
}

/**
 * The domains links are stored under, held in memory so that following picks the one stored
 * domain a Host's link can be under without asking the store. Usually one domain per
 * organization; two for an organization whose domain provisioning has since re-saved without
 * the default port an older version kept (`acme.link` now, its older links under
 * `acme.link:443`).
 *
 * Loaded when the core is made (the links' domains and the organizations'), then again by the
 * first follow after `refreshMs`, in the background: no follow waits for a reload, only the first
 * ones for the first load. A reload reads the organizations' domains only: a link is stored under
 * its organization's domain, which never moves while it holds links, so these cover every link
 * made since the first load; the older forms that only links hold were read then, and links are
 * never deleted. A link this process creates makes its domain known at once. An organization
 * provisioned elsewhere since the last load is not known yet; its Host still finds its links
 * when it names the domain as stored (see `domainsToRead`), which is how browsers send it.
 */
export class LinkDomainDirectory {
  private known = new Set<string>();
  private loadedAt = Number.NEGATIVE_INFINITY;
  private firstLoad: Promise<void> | null;
  private reloading = false;
  /** Whether the links' own domains were read (once; again after a failed read). */
  private linksRead = false;
  private readonly now: () => number;

  constructor(
    private readonly sources: LinkDomainSources,
    private readonly options: LinkDomainDirectoryOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.firstLoad = this.reload().finally(() => {
      this.firstLoad = null;
    });
  }

  /** A domain a link was just stored under (by this process). */
  add(domain: string): void {
    this.known.add(domain);
  }

  /**
   * Which of a Host's candidates (most specific first) a lookup reads, in order: those the
   * directory knows, so one in the usual case and two only where links are stored under both
   * forms of one domain; or, when it knows none, the first, the form the Host itself names (a
   * domain no link was stored under at the last load). Never a store call but the first load,
   * which the first follows of a new core wait for.
   */
  async domainsToRead(candidates: readonly DomainCandidate[]): Promise<DomainCandidate[]> {
    if (this.firstLoad) await this.firstLoad;
    return this.knownNow(candidates);
  }

  /** The same without waiting for anything: what the directory knows at this moment. */
  knownNow(candidates: readonly DomainCandidate[]): DomainCandidate[] {
    if (!this.reloading && this.now() - this.loadedAt >= this.options.refreshMs) {
      void this.reload();
    }
    const known = candidates.filter((candidate) => this.known.has(candidate.domain));
    return known.length > 0 ? known : candidates.slice(0, 1);
  }

  /** Never rejects: a failed read keeps what was known and is tried again after a period. */
  private async reload(): Promise<void> {
    this.reloading = true;
    try {
      const [organizations, links] = await Promise.allSettled([
        this.sources.identities.listLinkDomains(),
        this.linksRead ? Promise.resolve([]) : this.sources.links.listDomains(),
      ]);
      // Domains are only added: links are never deleted, so a domain once known stays known
      // (and links made here while the lists were read may be missing from them).
      for (const read of [organizations, links]) {
        if (read.status === 'fulfilled') for (const domain of read.value) this.known.add(domain);
      }
      if (links.status === 'fulfilled') this.linksRead = true;
      const failed = [organizations, links].find((read) => read.status === 'rejected');
      if (failed) {
        // One line per period at most while the store is away; follows meanwhile read the Host's
        // own form of a domain the directory does not know, and the store's failure answers them.
        this.options.logger.warn(
          { err: failed.reason as unknown },
          'could not load the link domains for following; keeping the last known list',
        );
      }
    } finally {
      this.loadedAt = this.now();
      this.reloading = false;
    }
  }
}
