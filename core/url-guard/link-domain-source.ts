import type { IdentityStore } from '../ports/identity-store';
import type { Logger } from '../ports/logger';
import { LinkDomains } from './link-domains';

interface LinkDomainSourceOptions {
  /** How long a loaded list is trusted before the next check reloads it. */
  refreshMs: number;
  logger: Logger;
  /** Milliseconds since the epoch (tests pass their own). */
  now?: () => number;
}

/**
 * The link domains of every organization, cached so the hot path does not query the store on
 * each request. A check after `refreshMs` answers from the list in hand and reloads it in the
 * background (one query shared by concurrent checks), so an organization provisioned elsewhere is
 * seen within about `refreshMs`, and a store that fails or hangs (an election) never holds a
 * check up: a failed reload keeps the last list. Only a check with no list yet waits for the
 * store, and so does the next check after `invalidate()` (called after provisioning in this
 * process, so its own new domain counts at once).
 */
export class LinkDomainSource {
  private domains: LinkDomains | null = null;
  private loadedAt = 0;
  private awaitNextLoad = false;
  private loading: Promise<LinkDomains> | null = null;
  private readonly now: () => number;

  constructor(
    private readonly identities: Pick<IdentityStore, 'listLinkDomains'>,
    private readonly options: LinkDomainSourceOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  invalidate(): void {
    this.awaitNextLoad = true;
  }

  current(): Promise<LinkDomains> {
    if (!this.domains || this.awaitNextLoad) return this.load();
    if (this.now() - this.loadedAt >= this.options.refreshMs) {
      // Never rejects while a list exists (reload() keeps it); the catch is for the type checker.
      this.load().catch(() => undefined);
    }
    return Promise.resolve(this.domains);
  }

  private load(): Promise<LinkDomains> {
    this.loading ??= this.reload().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async reload(): Promise<LinkDomains> {
    try {
      const domains = new LinkDomains(await this.identities.listLinkDomains());
      this.domains = domains;
      this.loadedAt = this.now();
      this.awaitNextLoad = false;
      return domains;
    } catch (error) {
      // With no list yet the store is down for the whole request anyway: let it report that.
      if (!this.domains) throw error;
      // Keep the last list and retry after another period, so an outage logs once per period.
      this.loadedAt = this.now();
      this.awaitNextLoad = false;
      this.options.logger.warn(
        { err: error },
        'could not reload the link domains; keeping the last known list',
      );
      return this.domains;
    }
  }
}
