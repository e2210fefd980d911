import type { LinkScheme } from './identity-store';

export type RedirectType = 301 | 302 | 303 | 307 | 308;

export interface LinkRecord {
  id: number;
  /** Lower-case link domain; aliases are unique per domain. */
  domain: string;
  /** Case-sensitive. */
  alias: string;
  url: string;
  redirectType: RedirectType;
  scheme: LinkScheme;
  organizationId: string;
  groupApiId: string;
  userId: string;
  createdAt: Date;
}

/** A link to insert: everything but the id, which the store assigns. */
export type NewLink = Omit<LinkRecord, 'id'>;

export interface LinkStore {
  /**
   * Inserts atomically and answers the stored record, with the id the store assigned: unique
   * across the deployment and increasing, starting at 1, not gapless. When (domain, alias)
   * already exists no link is written and the answer is 'alias_taken'. Uniqueness is decided
   * here, never by a prior lookup; the answer comes once the link is as durable as the store
   * makes anything.
   */
  insert(link: NewLink): Promise<LinkRecord | 'alias_taken'>;
  findByAlias(domain: string, alias: string): Promise<LinkRecord | null>;
}
