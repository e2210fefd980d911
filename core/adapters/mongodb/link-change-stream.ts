import type { Collection, Document, Timestamp } from 'mongodb';
import type { Logger } from '../../ports/logger';
import type { ChangeWatch, LinkChange } from '../../ports/store';
import type { LinkDocument } from './documents';
import { watchResumably, type WatchedEvent } from './resumable-change-stream';

/**
 * The events of `links` that change a cached link, matched first so the server applies it before
 * anything leaves it: no insert (a new link is in no cache: misses are never kept; inserts are
 * most of the collection's writes, so they stay on the server). An update (a disable or an
 * enable) carries the link's domain and alias from the document looked up for it
 * (`updateLookup`; they never change), and nothing else of it but the event's times (for the lag
 * metric).
 */
export const LINK_PIPELINE: Document[] = [
  {
    $match: {
      operationType: { $in: ['update', 'replace', 'delete', 'drop', 'rename', 'invalidate'] },
    },
  },
  {
    $project: {
      operationType: 1,
      clusterTime: 1,
      wallTime: 1,
      documentKey: 1,
      'fullDocument.domain': 1,
      'fullDocument.alias': 1,
    },
  },
];

interface LinkChangeStreamOptions {
  /** The server's operation time now (serverOperationTime), where a stream from now starts. */
  operationTime(): Promise<Timestamp | undefined>;
  logger?: Logger;
  /** How long to wait before reopening a stream that failed (ms). */
  retryMs?: number;
}

/**
 * The link an event is about, by domain and alias: from the looked-up document, else from the
 * document key (on a cluster sharded on {domain, alias} it holds the shard key). An event that
 * names no link (a deletion by hand on a replica set, the collection dropped) touches every link.
 */
function linkChangeOf(event: WatchedEvent): LinkChange {
  for (const source of [event.fullDocument, event.documentKey]) {
    const domain = source?.domain;
    const alias = source?.alias;
    if (typeof domain === 'string' && typeof alias === 'string') return { domain, alias };
  }
  return 'all';
}

/**
 * Follows `links` with a change stream and reports which link changed, so every process drops
 * that link from its cache at once: a disable made anywhere stops the link being followed
 * everywhere within moments instead of within CHANGE_PROPAGATION_SECONDS. Resumed from its last
 * token after a failure (watchResumably); where change streams are unsupported (a standalone
 * server) the link cache relies on its TTL.
 */
export function watchLinkChanges(
  links: Pick<Collection<LinkDocument>, 'watch'>,
  listener: (change: LinkChange) => void,
  options: LinkChangeStreamOptions,
): ChangeWatch {
  return watchResumably({
    open: (from) =>
      links.watch<Document, WatchedEvent>(LINK_PIPELINE, { fullDocument: 'updateLookup', ...from }),
    onChange: (event) => listener(linkChangeOf(event)),
    onMissed: () => listener('all'),
    name: 'link',
    fallback: 'the link cache relies on CHANGE_PROPAGATION_SECONDS',
    ...options,
  });
}
