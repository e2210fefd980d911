import { createRedisClient } from '../adapters/redis/redis-connection';
import {
  publishingInvalidations,
  subscribedInvalidations,
} from '../adapters/redis/redis-invalidations';
import { parseRedisTopology } from '../adapters/redis/redis-topology';
import type { Logger } from '../ports/logger';
import type { Store } from '../ports/store';
import type { Config } from './config';

/**
 * The store as MONGODB_INVALIDATION asks: unchanged (`stream`: each process follows the change
 * streams), its streams republished on REDIS_URL (`publish`), or its changes heard from there and
 * no stream of its own (`redis`). The Redis connection is one of its own, closed with the store.
 */
export function invalidationsFromConfig(backend: Store, config: Config, logger: Logger): Store {
  const role = config.MONGODB_INVALIDATION;
  if (role === 'stream' || !config.REDIS_URL) return backend;
  const client = createRedisClient(
    parseRedisTopology(config.REDIS_URL, config.REDIS_SENTINEL_NAME),
  );
  client.on('error', (error: unknown) => {
    logger.debug({ err: error }, 'Redis invalidations: connection error');
  });
  const options = { logger };
  return role === 'publish'
    ? publishingInvalidations(backend, client, options)
    : subscribedInvalidations(backend, client, options);
}
