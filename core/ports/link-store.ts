import type { CompletedRecord, IdempotencyScope } from './idempotency-store';
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

/** An idempotency key's running record, to complete in the same write as its link. */
export interface LinkCompletion {
  scope: IdempotencyScope;
  owner: string;
  /** The completed record of the link as stored (with its id). */
  completed: (link: LinkRecord) => CompletedRecord;
}

export interface LinkStore {
  /**
   * Inserts atomically and answers the stored record, with the id the store assigned: unique
   * across the deployment and increasing, starting at 1, not gapless. When (domain, alias)
   * already exists no link is written and the answer is 'alias_taken'. Uniqueness is decided
   * here, never by a prior lookup; the answer comes once the link is as durable as the store
   * makes anything.
   */
  insert(link: NewLink): Promise<LinkRecord | 'alias_taken'>;
  /**
   * Optional: `insert`, and when the link is written, `completion`'s running idempotency record
   * completed (as IdempotencyStore.complete does: only while it is still its owner's) in the same
   * atomic write, so the link never exists without its recorded answer. A taken alias writes
   * neither. Stores without it get `insert`, then `complete`.
   */
  insertCompleting?(link: NewLink, completion: LinkCompletion): Promise<LinkRecord | 'alias_taken'>;
  findByAlias(domain: string, alias: string): Promise<LinkRecord | null>;
}
