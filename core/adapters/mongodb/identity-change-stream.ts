import { MongoServerError, type ChangeStreamDocument, type Db } from 'mongodb';
import { silentLogger, type Logger } from '../../ports/logger';
import type { IdentityChange, IdentityWatch } from '../../ports/store';
import { messageOf } from '../../errors/message-of';
import { COLLECTIONS } from './documents';

/** The identity collections whose changes the caches must hear of, and what each touches. */
const WATCHED: Readonly<Record<string, IdentityChange>> = {
  [COLLECTIONS.tokens]: 'tokens',
  [COLLECTIONS.organizations]: 'organizations',
  [COLLECTIONS.memberships]: 'memberships',
  [COLLECTIONS.groups]: 'groups',
};

/**
 * Server codes meaning "no change streams here": 40573 on a standalone server (change streams need
 * a replica set or a sharded cluster), 115 (CommandNotSupported), 20 (IllegalOperation, e.g.
 * storage engines without an oplog).
 */
const UNSUPPORTED_CODES = new Set([40573, 115, 20]);

function isUnsupported(error: unknown): boolean {
  return error instanceof MongoServerError && UNSUPPORTED_CODES.has(Number(error.code));
}

export interface IdentityChangeStreamOptions {
  logger?: Logger;
  /** How long to wait before reopening a stream that failed (ms). */
  retryMs?: number;
}

/**
 * Follows the identity collections with a change stream and reports each change, so every process
 * drops its cached identities at once (a deactivated organization refused everywhere within
 * moments, not within the cache TTL). Where change streams are unsupported (a standalone server)
 * it logs that once and stops: the caches then rely on their TTL. A stream that fails otherwise
 * is reopened after `retryMs`; since changes may have been missed meanwhile, 'all' is reported.
 * Resumable errors (elections, dropped connections) are resumed by the driver itself.
 */
export function watchIdentityChanges(
  db: Pick<Db, 'watch'>,
  listener: (change: IdentityChange) => void,
  options: IdentityChangeStreamOptions = {},
): IdentityWatch {
  const logger = options.logger ?? silentLogger;
  const retryMs = options.retryMs ?? 5000;
  let closed = false;
  let stream: ReturnType<Db['watch']> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const open = (reopening: boolean) => {
    if (closed) return;
    const current = db.watch([{ $match: { 'ns.coll': { $in: Object.keys(WATCHED) } } }]);
    stream = current;
    if (reopening) listener('all');
    current.on('change', (event: ChangeStreamDocument) => {
      const collection = 'ns' in event && 'coll' in event.ns ? event.ns.coll : '';
      listener(WATCHED[collection] ?? 'all');
    });
    current.on('error', (error: unknown) => {
      void current.close().catch(() => undefined);
      if (closed) return;
      if (isUnsupported(error)) {
        logger.info(
          { reason: messageOf(error) },
          'MongoDB change streams unavailable (not a replica set): identity caches rely on IDENTITY_CACHE_TTL_SECONDS',
        );
        return;
      }
      logger.warn(
        { reason: messageOf(error), retryMs },
        'identity change stream failed: caches cleared, reopening',
      );
      listener('all');
      timer = setTimeout(() => open(true), retryMs);
      timer.unref();
    });
  };

  open(false);
  return {
    close: async () => {
      closed = true;
      clearTimeout(timer);
      await stream?.close().catch(() => undefined);
    },
  };
}
