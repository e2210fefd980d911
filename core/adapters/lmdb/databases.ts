import type { Database, RootDatabase } from 'lmdb';
import type { Organization, TokenRecord, UrlGroup, User } from '../../ports/identity-store';
import type { LinkRecord } from '../../ports/link-store';

/**
 * What the environment holds, one named database each. Keys are ordered-binary (lmdb-js's
 * default), so a tuple such as [domain, alias] is one key; values are MessagePack. These shapes
 * stay inside the adapter: the ports know nothing of LMDB.
 */
export const DATABASES = {
  /** Format version and counters. */
  meta: 'meta',
  /** [domain, alias] → StoredLink. The key is what makes an alias unique per domain. */
  links: 'links',
  /**
   * link id → [domain, alias]: a link by id, and every link newest first (the operator's rescan).
   * Written in the same transaction as the link; ids only grow, so each goes at the tree's end.
   */
  linksById: 'links_by_id',
  /**
   * organization id → link id, one entry per link (LMDB duplicate keys, `dupSort`, the ids in
   * numeric order): one organization's links newest first, read backwards from the highest id,
   * without reading another organization's. LMDB keeps each organization's ids in a tree of their
   * own, so a new link's id goes at that tree's end and the key is stored once.
   */
  linksByOrganization: 'links_by_organization',
  /** [organization id, URL group api id] → link id, the same way: one group's links. */
  linksByGroup: 'links_by_group',
  /** organization id → Organization (the secret key only as keyHash). */
  organizations: 'organizations',
  /** keyHash → organization id: a unique index, kept in the same transaction as the record. */
  organizationsByKeyHash: 'organizations_by_key_hash',
  /**
   * link domain → organization id: a unique index (two organizations never share a domain),
   * kept in the same transaction as the record.
   */
  organizationsByDomain: 'organizations_by_domain',
  /** [organizationId, apiId] → UrlGroup. */
  groups: 'groups',
  /** user id → User. */
  users: 'users',
  /** tokenHash → TokenRecord (only the hash of a token). */
  tokens: 'tokens',
  /** [userId, organizationId] → true. */
  memberships: 'memberships',
  /**
   * [idempotency key, userId] → StoredIdempotencyRecord: the completed records. (Format 1 kept
   * running claims here too; they are honoured until their lease ends, then swept.)
   */
  idempotency: 'idempotency',
  /** [expiresAt ms, idempotency key, userId] → true: completed records in the order they expire. */
  idempotencyExpiry: 'idempotency_expiry',
  /** [link id, position] → StoredHistoryEntry: every link's changes, in order (format 4). */
  linkHistory: 'link_history',
  /**
   * [idempotency key, userId] → StoredRunningRecord: the claims of requests still running. It
   * holds only the requests in flight, so it stays a few pages that every batch's claims share;
   * in `idempotency`, each claim dirtied a page of a large tree of its own (see the README).
   */
  idempotencyRunning: 'idempotency_running',
  /**
   * [link id, UTC day] → [humans, bots]: redirects counted per link and day (core/visits/). New
   * databases within format 4: a build that does not know them never opens them.
   */
  linkVisits: 'link_visits',
  /** link id → [humans, bots]: every redirect of the link, kept with the days it adds up. */
  linkVisitTotals: 'link_visit_totals',
  /** process id → the seq of the last visit batch applied from it: a batch applies once. */
  visitBatches: 'visit_batches',
} as const;

/**
 * Named databases an environment may hold: the ones above and room for more, without reopening
 * with other settings.
 */
export const MAX_DATABASES = 32;

export const META_KEYS = {
  formatVersion: 'format_version',
  linkIds: 'link_id',
  /** When a process last opened the store (written at start-up, as a write probe). */
  openedAt: 'opened_at',
} as const;

/** Why, when and by whom a link was disabled, as a tuple. */
export type StoredDisabling = [reason: string, atMs: number, by: string];

/**
 * A link without its key (domain and alias) as a fixed-order tuple: about half the bytes of a
 * MessagePack map with field names, which counts at millions of links. The optional fields follow
 * the eight every link has, each `null` where absent when a later one is present, and the tuple
 * ends after its last present one: a link written by format 2 has 8 elements, an active link of
 * format 3 has 8 and a disabled one 9, all read as they were (see link-tuple.ts).
 */
export type StoredLink = [
  id: number,
  url: string,
  redirectType: LinkRecord['redirectType'],
  scheme: LinkRecord['scheme'],
  organizationId: string,
  groupApiId: string,
  userId: string,
  createdAtMs: number,
  disabled?: StoredDisabling | null,
  expiresAtMs?: number | null,
  maxVisits?: number | null,
  visits?: number | null,
];

/** One entry of a link's history as a tuple (see LinkHistoryEntry). */
export type StoredHistoryEntry =
  | [
      kind: 'updated',
      atMs: number,
      by: string,
      changes: Array<[string, string | null, string | null]>,
    ]
  | [kind: 'disabled', atMs: number, by: string, reason: string]
  | [kind: 'enabled', atMs: number, by: string];

/** [link id, position from 1] → the link's entry at that position. */
export type HistoryKey = [linkId: number, position: number];

/** [link id, UTC day] → that day's counts of the link. */
export type VisitKey = [linkId: number, day: number];
/** Redirects by people and by likely bots. */
export type StoredVisits = [humans: number, bots: number];

/** A running claim as a tuple (in `idempotency_running`; format 1 kept them in `idempotency`). */
export type StoredRunningRecord = [
  state: 'running',
  fingerprint: string,
  expiresAtMs: number,
  owner: string,
];
/** A completed record as a tuple. */
export type StoredCompletedRecord = [
  state: 'completed',
  fingerprint: string,
  expiresAtMs: number,
  code: number,
  body: string,
];
/** What `idempotency` holds; the fingerprint and expiry sit at the same places in both. */
export type StoredIdempotencyRecord = StoredRunningRecord | StoredCompletedRecord;

export type IdempotencyKey = [key: string, userId: string];
export type ExpiryKey = [expiresAtMs: number, key: string, userId: string];

export type LinkKey = [domain: string, alias: string];
export type GroupKey = [organizationId: string, groupApiId: string];
export type PairKey = [string, string];

export interface LmdbDatabases {
  root: RootDatabase;
  /**
   * Set when the store's close() begins: no operation reaches lmdb-js after it (lmdb-js would
   * never settle a write on a closed environment and throw from a timer of its own instead).
   */
  closed: boolean;
  meta: Database<unknown, string>;
  links: Database<StoredLink, LinkKey>;
  linksById: Database<LinkKey, number>;
  /** Duplicate keys: several ids per organization (getValues). */
  linksByOrganization: Database<number, string>;
  /** Duplicate keys: several ids per group (getValues). */
  linksByGroup: Database<number, GroupKey>;
  linkHistory: Database<StoredHistoryEntry, HistoryKey>;
  organizations: Database<Organization, string>;
  organizationsByKeyHash: Database<string, string>;
  organizationsByDomain: Database<string, string>;
  groups: Database<UrlGroup, PairKey>;
  users: Database<User, string>;
  tokens: Database<TokenRecord, string>;
  memberships: Database<true, PairKey>;
  idempotency: Database<StoredIdempotencyRecord, IdempotencyKey>;
  idempotencyExpiry: Database<true, ExpiryKey>;
  idempotencyRunning: Database<StoredRunningRecord, IdempotencyKey>;
  linkVisits: Database<StoredVisits, VisitKey>;
  linkVisitTotals: Database<StoredVisits, number>;
  visitBatches: Database<number, string>;
}

/**
 * How the organization and group indexes are opened: duplicate keys, and values (link ids) in
 * ordered-binary, so that LMDB sorts them as numbers (MessagePack bytes would not sort so).
 */
export const LINK_ID_INDEX = { dupSort: true, encoding: 'ordered-binary' } as const;

export function openDatabases(root: RootDatabase): LmdbDatabases {
  return {
    root,
    closed: false,
    meta: root.openDB<unknown, string>({ name: DATABASES.meta }),
    links: root.openDB<StoredLink, LinkKey>({ name: DATABASES.links }),
    linksById: root.openDB<LinkKey, number>({ name: DATABASES.linksById }),
    linksByOrganization: root.openDB<number, string>({
      name: DATABASES.linksByOrganization,
      ...LINK_ID_INDEX,
    }),
    linksByGroup: root.openDB<number, GroupKey>({ name: DATABASES.linksByGroup, ...LINK_ID_INDEX }),
    linkHistory: root.openDB<StoredHistoryEntry, HistoryKey>({ name: DATABASES.linkHistory }),
    organizations: root.openDB<Organization, string>({ name: DATABASES.organizations }),
    organizationsByKeyHash: root.openDB<string, string>({
      name: DATABASES.organizationsByKeyHash,
    }),
    organizationsByDomain: root.openDB<string, string>({ name: DATABASES.organizationsByDomain }),
    groups: root.openDB<UrlGroup, PairKey>({ name: DATABASES.groups }),
    users: root.openDB<User, string>({ name: DATABASES.users }),
    tokens: root.openDB<TokenRecord, string>({ name: DATABASES.tokens }),
    memberships: root.openDB<true, PairKey>({ name: DATABASES.memberships }),
    idempotency: root.openDB<StoredIdempotencyRecord, IdempotencyKey>({
      name: DATABASES.idempotency,
    }),
    idempotencyExpiry: root.openDB<true, ExpiryKey>({ name: DATABASES.idempotencyExpiry }),
    idempotencyRunning: root.openDB<StoredRunningRecord, IdempotencyKey>({
      name: DATABASES.idempotencyRunning,
    }),
    linkVisits: root.openDB<StoredVisits, VisitKey>({ name: DATABASES.linkVisits }),
    linkVisitTotals: root.openDB<StoredVisits, number>({ name: DATABASES.linkVisitTotals }),
    visitBatches: root.openDB<number, string>({ name: DATABASES.visitBatches }),
  };
}
