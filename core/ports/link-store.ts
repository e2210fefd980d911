import type { CompletedRecord, IdempotencyScope } from './idempotency-store';
import type { LinkScheme } from './identity-store';

export type RedirectType = 301 | 302 | 303 | 307 | 308;

/** A link is `active` (followed) or `disabled` (answered 410, LINK_DISABLED); never deleted. */
export type LinkState = 'active' | 'disabled';

/**
 * Who changed a link: `user:<id>` (a member, through the core's procedures), `admin` (the
 * operator's CLI) or `rescan` (the CLI's rescan). Links disabled before actors were named carry a
 * bare user id (or `admin`): see actorOf in links/link-actor.ts.
 */
export type LinkActor = `user:${string}` | 'admin' | 'rescan';

/** The operator's name in `LinkDisabling.by` (the admin CLI, for any organization). */
export const ADMIN_ACTOR = 'admin' satisfies LinkActor;
/** A rescan's name in `LinkDisabling.by`: a takedown only the operator lifts, as the CLI's. */
export const RESCAN_ACTOR = 'rescan' satisfies LinkActor;

/** Who disabled a link, when and why. */
export interface LinkDisabling {
  /** 1 to MAX_DISABLE_REASON_LENGTH characters; for operators, never shown to a follower. */
  reason: string;
  at: Date;
  /** A LinkActor (or, on a link disabled before actors were named, a bare user id). */
  by: string;
}

/** Who makes a change and when, and whether a takedown by the operator stops it. */
export interface LinkActing {
  at: Date;
  by: LinkActor;
  /**
   * A member's change: refused ('held') when the link is disabled by the operator or a rescan,
   * decided in the same atomic write as the change.
   */
  refuseHeld: boolean;
}

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
  /** When the link stops being followed (LINK_EXPIRED); absent: never. */
  expiresAt?: Date;
  /** The most redirects the link makes (then LINK_EXPIRED); absent: no limit. */
  maxVisits?: number;
  /**
   * Redirects counted against maxVisits (atomically, LinkStore.takeVisit); present only on a link
   * with maxVisits. Kept when maxVisits is edited, so a raised limit continues from it.
   */
  visits?: number;
}

/**
 * Every field of T present as a key, even its optional ones (undefined where absent). An encoder
 * or decoder of links written as an object of this type names every field of LinkRecord: a field
 * added to the record and forgotten there fails the compiler at that place (see link-shape.ts).
 */
export type EveryField<T> = { [K in keyof Required<T>]: Required<T>[K] | undefined };

/** A link to insert: everything but what the store assigns or a change makes; a new link is active. */
export type NewLink = Omit<LinkRecord, 'id' | 'disabled' | 'visits'>;

/** The fields of a link an edit may change (never its alias, domain or owner). */
export interface LinkEdit {
  url?: string;
  redirectType?: RedirectType;
  /** null: never expires. */
  expiresAt?: Date | null;
  /** null: no limit. */
  maxVisits?: number | null;
}

/** An edited field as the history keeps it: its wire name, its value before and after. */
export interface LinkFieldChange {
  field: 'url' | 'redirect_type' | 'expires_at' | 'max_visits';
  /** The value as text (a URL, a status, an ISO 8601 time, a count); null: none. */
  from: string | null;
  to: string | null;
}

/** One entry of a link's history, as the store keeps it; nothing later changes or removes it. */
export type LinkHistoryEntry =
  | { kind: 'updated'; at: Date; by: string; changes: LinkFieldChange[] }
  | { kind: 'disabled'; at: Date; by: string; reason: string }
  | { kind: 'enabled'; at: Date; by: string };

/** What a change of a link answered: the link as it now is, and whether this call changed it. */
export interface LinkChangeOutcome {
  link: LinkRecord;
  changed: boolean;
}

/** An idempotency key's running record, to complete in the same write as its link. */
export interface LinkCompletion {
  scope: IdempotencyScope;
  owner: string;
  /** The completed record of the link as stored (with its id). */
  completed: (link: LinkRecord) => CompletedRecord;
}

/**
 * A link's place in a listing: listings are ordered newest first by creation time, then by id
 * (ids are unique, and increase within one process only, so they break ties, not order time).
 */
export interface LinkPosition {
  createdAt: Date;
  id: number;
}

/** The position of `link` in a listing. */
export const positionOf = (link: Pick<LinkRecord, 'createdAt' | 'id'>): LinkPosition => ({
  createdAt: link.createdAt,
  id: link.id,
});

/** Which links `LinkStore.list` reads, newest first (by createdAt, then id, both descending). */
export interface LinkListQuery {
  /** One organization's links; absent: every link (the operator's rescan). */
  organizationId?: string;
  /** With organizationId: one URL group's links only. */
  groupApiId?: string;
  /**
   * Only links after this position in that order: created earlier, or at the same time with a
   * lower id; absent: from the newest. The position of a link (the last of the previous page):
   * LMDB and memory, where ids and creation times agree, read only its id.
   */
  before?: LinkPosition;
  /** The most links answered, at least 1. */
  limit: number;
}

export interface LinkStore {
  /**
   * Inserts atomically and answers the stored record, with the id the store assigned: unique
   * across the deployment, increasing within one process (MongoDB's blocks; LMDB and memory
   * increase across processes too), starting at 1, not gapless. LMDB and memory store a creation
   * time no earlier than the previous link's (a create whose clock read came before another's
   * commit takes that one's time), so there ids and creation times order links alike. When (domain, alias)
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
   * under before provisioning dropped a default port). Read by following's domain directory once
   * when the core is made (its reloads read the organizations' domains), never per request.
   */
  listDomains(): Promise<string[]>;
  findById(id: number): Promise<LinkRecord | null>;
  /**
   * The links `query` names, newest first: by createdAt, then id, both descending. Paging from
   * `before` (the last link of the previous page) repeats and misses nothing that existed when
   * the first page was read, whatever is inserted meanwhile (a new link's creation time is later).
   */
  list(query: LinkListQuery): Promise<LinkRecord[]>;
  /**
   * Disables the link with this id (`disabling`) or enables it (`null`, by `acting.by` at
   * `acting.at`), read and written in one atomic write with its history entry. A link already in
   * the asked state is left as it is (a disabled link keeps its first reason; no entry). Answers
   * the link as it now is, with `changed` telling whether this call changed it; 'held' (nothing
   * written) for a member's enable (`acting.refuseHeld`) of a link the operator or a rescan
   * disabled; null when no link has the id (nothing is written). Nothing else of the link
   * changes, and nothing is ever deleted.
   */
  setDisabled(
    id: number,
    disabling: LinkDisabling | null,
    acting: LinkActing,
  ): Promise<LinkChangeOutcome | 'held' | null>;
  /**
   * Applies `edit` to the link with this id and appends its history entry (each changed field's
   * old and new value), in one atomic write. Fields equal to the stored ones change nothing; an
   * edit that changes nothing writes nothing (changed: false). 'held' (nothing written) when
   * `acting.refuseHeld` and the link is disabled by the operator or a rescan; null when no link
   * has the id.
   */
  update(
    id: number,
    edit: LinkEdit,
    acting: LinkActing,
  ): Promise<LinkChangeOutcome | 'held' | null>;
  /**
   * Counts one redirect of a link with maxVisits, atomically: 'counted' while its visits were
   * below its maxVisits (they grow by one), 'exhausted' when they were not (nothing written).
   * Exact across processes sharing the store. A link without maxVisits is 'counted' and nothing
   * is written; null when no link has the id.
   */
  takeVisit(id: number): Promise<'counted' | 'exhausted' | null>;
  /**
   * The entries of the link's history after its `after`-th (0: from the first), oldest first, at
   * most `limit`, each with its position (1 for the first). State changes and edits only: the
   * creation is the link's own createdAt and userId.
   */
  history(
    id: number,
    page: { after: number; limit: number },
  ): Promise<Array<{ position: number; entry: LinkHistoryEntry }>>;
  /**
   * How many links are stored under `domain` exactly (as stored: lower case, no other form of it),
   * whatever their organization or state. Counting stops at `limit` when one is given (at least
   * 1), so the answer is then at most `limit`: a caller that only needs "none", "some" or "at
   * least this many" pays for no more. Read by provisioning, which keeps a link domain that holds
   * links with its organization; never on a request's path.
   */
  countByDomain(domain: string, limit?: number): Promise<number>;
}

/** Whether the link is disabled by the operator or a rescan: a takedown only the CLI lifts. */
export function isHeldByOperator(link: Pick<LinkRecord, 'disabled'>): boolean {
  const by = link.disabled?.by;
  return by === ADMIN_ACTOR || by === RESCAN_ACTOR;
}

export function linkStateOf(link: Pick<LinkRecord, 'disabled'>): LinkState {
  return link.disabled ? 'disabled' : 'active';
}
