import type { LinkScheme } from '../../ports/identity-store';
import type { RedirectType } from '../../ports/link-store';

/**
 * What each collection holds. Secrets appear only as SHA-256 hashes (the ports pass nothing
 * else). These shapes stay inside the adapter: the ports know nothing of MongoDB.
 */

export interface LinkDocument {
  /** The link id from the counter. */
  _id: number;
  domain: string;
  alias: string;
  url: string;
  redirectType: RedirectType;
  scheme: LinkScheme;
  organizationId: string;
  groupApiId: string;
  userId: string;
  createdAt: Date;
}

export interface OrganizationDocument {
  _id: string;
  name: string;
  domain: string;
  scheme: LinkScheme;
  active: boolean;
  keyHash: string;
}

export interface GroupDocument {
  organizationId: string;
  apiId: string;
  name: string;
}

export interface UserDocument {
  _id: string;
  name: string;
}

export interface TokenDocument {
  tokenHash: string;
  userId: string;
  createdAt: Date;
}

export interface MembershipDocument {
  userId: string;
  organizationId: string;
}

export interface CounterDocument {
  _id: string;
  seq: number;
}

export const COLLECTIONS = {
  links: 'links',
  organizations: 'organizations',
  groups: 'groups',
  users: 'users',
  tokens: 'tokens',
  memberships: 'memberships',
  counters: 'counters',
  /** rate-limiter-flexible's documents (per-token and auth-failure windows). */
  rateLimits: 'rate_limits',
} as const;
