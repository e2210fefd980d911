import type { IdentityWatch, Store } from '../ports/store';
import { CachedIdentityStore } from './cached-identity-store';
import { CachedLinkStore } from './cached-link-store';

export const DEFAULT_LINK_CACHE_SIZE = 100_000;
export const DEFAULT_IDENTITY_CACHE_TTL_SECONDS = 10;

export interface CacheOptions {
  /** Found links kept for following; 0 turns the link cache off. */
  linkCacheSize: number;
  /** How long identity lookups are trusted; 0 turns the identity cache off. */
  identityTtlSeconds: number;
  /** Monotonic milliseconds for the TTL (tests inject a clock). */
  now?: () => number;
}

/** A store with the caches in front; `backend` is the store underneath, unchanged. */
export interface CachedStore extends Store {
  readonly backend: Store;
}

/**
 * The store-agnostic caches as decorators over the store's ports: links for following, identity
 * lookups for creating. Writes (and the ids links get) always go to the backend. When the
 * backend reports identity changes (MongoDB change streams), the identity cache is invalidated
 * at once on every process.
 */
export function withCaches(backend: Store, options: CacheOptions): CachedStore {
  const links =
    options.linkCacheSize > 0
      ? new CachedLinkStore(backend.links, options.linkCacheSize)
      : backend.links;
  let identities = backend.identities;
  let watch: IdentityWatch | undefined;
  if (options.identityTtlSeconds > 0) {
    const cached = new CachedIdentityStore(backend.identities, {
      ttlMs: options.identityTtlSeconds * 1000,
      ...(options.now ? { now: options.now } : {}),
    });
    identities = cached;
    watch = backend.watchIdentityChanges?.((change) => cached.invalidate(change));
  }
  return {
    kind: backend.kind,
    backend,
    identities,
    links,
    // Idempotency records change on every keyed request: never cached.
    idempotency: backend.idempotency,
    ping: () => backend.ping(),
    flush: () => backend.flush(),
    close: async () => {
      await watch?.close();
      await backend.close();
    },
  };
}
