import type { CompletedRecord, IdempotencyScope } from './idempotency-store';
import type { LinkScheme } from './identity-store';

export type RedirectType = 301 | 302 | 303 | 307 | 308;

/** A link is `active` (followed) or `disabled` (answered 410, LINK_DISABLED); never deleted. */
export type LinkState = 'active' | 'disabled';

/** Who disabled a link, when and why: a user's id, or `admin` for the operator's CLI. */
export interface LinkDisabling {
  /** 1 to MAX_DISABLE_REASON_LENGTH characters; for operators, never shown to a follower. */
  reason: string;
  at: Date;
  by: string;
}

/** The operator's name in `LinkDisabling.by` (the admin CLI, for any organization). */
export const ADMIN_ACTOR = 'admin';

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
  /** Present while the link is disabled; absent (never null) while it is active. */
  disabled?: LinkDisabling;
}

/** A link to insert: everything but the id, which the store assigns; a new link is active. */
export type NewLink = Omit<LinkRecord, 'id' | 'disabled'>;

/** An idempotency key's running record, to complete in the same write as its link. */
export interface LinkCompletion {
  scope: IdempotencyScope;
  owner: string;
  /** The completed record of the link as stored (with its id). */
  completed: (link: LinkRecord) => CompletedRecord;
}

/** Which links `LinkStore.list` reads, newest (highest id) first. */
export interface LinkListQuery {
  /** One organization's links; absent: every link (the operator's rescan). */
  organizationId?: string;
  /** With organizationId: one URL group's links only. */
  groupApiId?: string;
  /** Only links whose id is below this one (the page after a link); absent: from the newest. */
  beforeId?: number;
  /** The most links answered, at least 1. */
  limit: number;
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
   * A keyed create's insert: `insert`, made only while `completion`'s running idempotency record
   * is still its owner's, with that record completed in the same atomic write (or conditional
   * writes that no timing can split), so the link never exists without its recorded answer and
   * one key never makes two links. When the claim is no longer the owner's (its lease ran out and
   * another request claimed the key, or it was swept) nothing is written and the answer is
   * 'claim_lost'. A taken alias writes neither link nor record ('alias_taken'). A claim whose lease
   * ended but that nobody took over is still the owner's: a claim by another request replaces it
   * atomically, so nothing else can hold the key then.
   */
  insertCompleting(
    link: NewLink,
    completion: LinkCompletion,
  ): Promise<LinkRecord | 'alias_taken' | 'claim_lost'>;
  findByAlias(domain: string, alias: string): Promise<LinkRecord | null>;
  /**
   * The link `findByAlias` would answer, when this store knows it without reading (a cache's
   * entry); undefined when it cannot tell without a read. Optional: a store without an
   * in-process copy of links leaves it out. Following asks it for a client that is out of its
   * budget of unknown aliases, whose lookups must cost no read.
   */
  findKnownByAlias?(domain: string, alias: string): LinkRecord | undefined;
  /**
   * Every domain some link is stored under, once each, in no particular order: the forms a
   * following Host may name (a domain an organization holds now, or one its links were stored
   * under before provisioning dropped a default port). Read by following's domain directory a
   * few times a minute, not per request.
   */
  listDomains(): Promise<string[]>;
  findById(id: number): Promise<LinkRecord | null>;
  /**
   * The links `query` names, ordered by id from the highest down. Paging by `beforeId` (the last
   * id of the previous page) repeats and misses nothing that existed when the first page was read,
   * whatever is inserted meanwhile.
   */
  list(query: LinkListQuery): Promise<LinkRecord[]>;
  /**
   * Disables the link with this id (`disabling`) or enables it (`null`), read and written in one
   * atomic write. A link already in the asked state is left as it is (a disabled link keeps its
   * first reason). Answers the link as it now is, with `changed` telling whether this call
   * changed it; null when no link has the id (nothing is written). Nothing else of the link
   * changes, and nothing is ever deleted.
   */
  setDisabled(
    id: number,
    disabling: LinkDisabling | null,
  ): Promise<{ link: LinkRecord; changed: boolean } | null>;
  /**
   * How many links are stored under `domain` exactly (as stored: lower case, no other form of it),
   * whatever their organization or state. Counting stops at `limit` when one is given (at least
   * 1), so the answer is then at most `limit`: a caller that only needs "none", "some" or "at
   * least this many" pays for no more. Read by provisioning, which keeps a link domain that holds
   * links with its organization; never on a request's path.
   */
  countByDomain(domain: string, limit?: number): Promise<number>;
}

export function linkStateOf(link: Pick<LinkRecord, 'disabled'>): LinkState {
  return link.disabled ? 'disabled' : 'active';
}
