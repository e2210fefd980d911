import type { Db, Document, Timestamp } from 'mongodb';
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
 * What changes a cached identity: no insert (no cache keeps a miss, so a new document concerns
 * none), every other change of a document or of its collection.
 */
const CHANGING_OPERATIONS = ['update', 'replace', 'delete', 'drop', 'rename'];

/**
 * The identity collections' changes, and the database's own end (dropped: everything goes). The
 * stream watches the database, so its `$match` comes first, where the server applies it before
 * anything leaves it: the writes of every other collection (link inserts above all) and every
 * insert stay on the server. Only what the caches need travels: the document key, the event's
 * times (for the lag metric), and of the document as it now is (`fullDocument`, looked up for
 * updates: `updateLookup`, which an organization's key rotation needs) the fields a cached lookup
 * is keyed by: an organization's key hash, a token's hash, a membership's user and organization,
 * a group's organization and API id.
 */
export const IDENTITY_PIPELINE: Document[] = [
  {
    $match: {
      $or: [
        {
          'ns.coll': { $in: Object.keys(WATCHED) },
          operationType: { $in: CHANGING_OPERATIONS },
        },
        { operationType: { $in: ['dropDatabase', 'invalidate'] } },
      ],
    },
  },
  {
    $project: {
      operationType: 1,
      clusterTime: 1,
      wallTime: 1,
      ns: 1,
      documentKey: 1,
      'fullDocument.keyHash': 1,
      'fullDocument.tokenHash': 1,
      'fullDocument.userId': 1,
      'fullDocument.organizationId': 1,
      'fullDocument.apiId': 1,
    },
  },
];

interface IdentityChangeStreamOptions {
  /** The server's operation time now (serverOperationTime), where a stream from now starts. */
  operationTime(): Promise<Timestamp | undefined>;
  logger?: Logger;
  /** How long to wait before reopening a stream that failed (ms). */
  retryMs?: number;
}

/** The string fields `names` of the first source holding them all, or undefined. */
function keyFrom<K extends string>(
  sources: unknown[],
  names: readonly K[],
): Record<K, string> | undefined {
  for (const source of sources) {
    if (typeof source !== 'object' || source === null) continue;
    const fields = source as Record<string, unknown>;
    if (names.every((name) => typeof fields[name] === 'string')) {
      return Object.fromEntries(names.map((name) => [name, fields[name]])) as Record<K, string>;
    }
  }
  return undefined;
}

/**
 * What an event touches, by the key its lookup is cached under: from the document as it now is
 * (inserts, updates, replacements), else from the document key. Documents written by this
 * version carry their key in `_id` (a token's hash; a membership's or a group's pair), so a
 * deletion names its entry too; an older document's deletion (its `_id` an ObjectId) or an event
 * without a document key (the collection dropped) touches the whole kind, and an event of
 * anything else (the database dropped) everything.
 */
function identityChangeOf(event: WatchedEvent): IdentityChange {
  const kind = WATCHED[event.ns?.coll ?? ''];
  if (!kind) return 'all';
  const id = event.documentKey?._id;
  const sources = [event.fullDocument, id];
  switch (kind) {
    case 'organizations': {
      if (typeof id !== 'string') return kind;
      const keyHash = event.fullDocument?.keyHash;
      return { kind: 'organization', id, ...(typeof keyHash === 'string' && { keyHash }) };
    }
    case 'tokens': {
      const tokenHash = keyFrom([event.fullDocument], ['tokenHash'])?.tokenHash ?? id;
      return typeof tokenHash === 'string' ? { kind: 'token', tokenHash } : kind;
    }
    case 'memberships': {
      const key = keyFrom(sources, ['userId', 'organizationId']);
      return key ? { kind: 'membership', ...key } : kind;
    }
    case 'groups': {
      const key = keyFrom(sources, ['organizationId', 'apiId']);
      return key ? { kind: 'group', ...key } : kind;
    }
  }
}

/**
 * Follows the identity collections with one change stream and reports each change, so every
 * process drops its cached identities at once (a deactivated organization refused everywhere
 * within moments, not within the cache TTL). A change drops the one organization, token,
 * membership or group it names (identityChangeOf). Resumed from its last token after a
 * failure (watchResumably); where change streams are unsupported (a standalone server) the caches
 * rely on their TTL.
 */
export function watchIdentityChanges(
  db: Pick<Db, 'watch'>,
  listener: (change: IdentityChange) => void,
  options: IdentityChangeStreamOptions,
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
