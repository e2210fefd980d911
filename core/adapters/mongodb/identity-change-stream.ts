import type { Db, Document } from 'mongodb';
import type { Logger } from '../../ports/logger';
import type { ChangeWatch, IdentityChange, IdentityKind } from '../../ports/store';
import { COLLECTIONS } from './documents';
import { watchResumably, type WatchedEvent } from './resumable-change-stream';

/** The identity collections whose changes the caches must hear of, and what each touches. */
const WATCHED: Readonly<Record<string, IdentityKind>> = {
  [COLLECTIONS.tokens]: 'tokens',
  [COLLECTIONS.organizations]: 'organizations',
  [COLLECTIONS.memberships]: 'memberships',
  [COLLECTIONS.groups]: 'groups',
};

/**
 * The identity collections' events, and the database's own end (dropped: everything goes). Only
 * what the caches need travels: an organization's `_id` (in `documentKey`) and its key hash as it
 * now is (`fullDocument`, looked up for updates: `updateLookup`).
 */
export const IDENTITY_PIPELINE: Document[] = [
  {
    $match: {
      $or: [
        { 'ns.coll': { $in: Object.keys(WATCHED) } },
        { operationType: { $in: ['dropDatabase', 'invalidate'] } },
      ],
    },
  },
  { $project: { operationType: 1, ns: 1, documentKey: 1, 'fullDocument.keyHash': 1 } },
];

export interface IdentityChangeStreamOptions {
  logger?: Logger;
  /** How long to wait before reopening a stream that failed (ms). */
  retryMs?: number;
}

/**
 * What an event touches: one organization (by its id, and its key hash when the event carries
 * the document), a whole kind of lookup for the other collections (or an organizations event
 * without a document key, such as the collection's drop), else everything.
 */
export function identityChangeOf(event: WatchedEvent): IdentityChange {
  const kind = WATCHED[event.ns?.coll ?? ''];
  if (!kind) return 'all';
  const id = event.documentKey?._id;
  if (kind !== 'organizations' || typeof id !== 'string') return kind;
  const keyHash = event.fullDocument?.keyHash;
  return { kind: 'organization', id, ...(typeof keyHash === 'string' && { keyHash }) };
}

/**
 * Follows the identity collections with one change stream and reports each change, so every
 * process drops its cached identities at once (a deactivated organization refused everywhere
 * within moments, not within the cache TTL). An organization's change drops that organization
 * only; a token, membership or group change drops that kind. Resumed from its last token after a
 * failure (watchResumably); where change streams are unsupported (a standalone server) the caches
 * rely on their TTL.
 */
export function watchIdentityChanges(
  db: Pick<Db, 'watch'>,
  listener: (change: IdentityChange) => void,
  options: IdentityChangeStreamOptions = {},
): ChangeWatch {
  return watchResumably({
    open: (from) =>
      db.watch<Document, WatchedEvent>(IDENTITY_PIPELINE, {
        fullDocument: 'updateLookup',
        ...from,
      }),
    onChange: (event) => listener(identityChangeOf(event)),
    onMissed: () => listener('all'),
    name: 'identity',
    fallback:
      'identity caches rely on IDENTITY_CACHE_TTL_SECONDS (organizations on CHANGE_PROPAGATION_SECONDS)',
    ...options,
  });
}
