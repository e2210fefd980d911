import { withCaches, type CachedStore } from '../caches/cached-store';
import type { Store } from '../ports/store';
import type { Config } from './config';

/** The store with the caches LINK_CACHE_SIZE, IDENTITY_CACHE_TTL_SECONDS, IDENTITY_CACHE_SIZE,
 * CHANGE_PROPAGATION_SECONDS and STALE_IF_ERROR_SECONDS ask for. */
export function cachedStoreFromConfig(backend: Store, config: Config): CachedStore {
  return withCaches(backend, {
    linkCacheSize: config.LINK_CACHE_SIZE,
    identityTtlSeconds: config.IDENTITY_CACHE_TTL_SECONDS,
    identityCacheSize: config.IDENTITY_CACHE_SIZE,
    propagationSeconds: config.CHANGE_PROPAGATION_SECONDS,
    staleIfErrorSeconds: config.STALE_IF_ERROR_SECONDS,
  });
}
