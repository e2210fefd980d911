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

export type InsertOutcome = 'inserted' | 'alias_taken';

export interface LinkStore {
  /**
   * Inserts atomically: when (domain, alias) already exists nothing is written and the answer is
   * 'alias_taken'. Uniqueness is decided here, never by a prior lookup.
   */
  insert(link: LinkRecord): Promise<InsertOutcome>;
  findByAlias(domain: string, alias: string): Promise<LinkRecord | null>;
}
