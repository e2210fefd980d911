import { someHostOrParent } from './host';

/** A set of domains where a listed domain also covers every subdomain of it. */
export class DomainSet {
  private readonly domains: ReadonlySet<string>;

  constructor(domains: Iterable<string>) {
    this.domains = new Set(domains);
  }

  get size(): number {
    return this.domains.size;
  }

  /** True when the host name, or a parent domain of it, is listed. */
  covers(hostname: string): boolean {
    return someHostOrParent(hostname, (candidate) => this.domains.has(candidate));
  }
}
