import type { NamedChangeWatch } from '../metrics/shortlink-metrics';
import type { ChangeWatch, Store } from '../ports/store';
import { CachedIdentityStore, DEFAULT_IDENTITY_CACHE_SIZE } from './cached-identity-store';
import { CachedLinkStore } from './cached-link-store';
import { streamAdvances, TRUSTED_WHILE_STREAM_ADVANCES_SECONDS } from './stream-trust';

export const DEFAULT_LINK_CACHE_SIZE = 100_000;
export const DEFAULT_IDENTITY_CACHE_TTL_SECONDS = 10;
export { DEFAULT_IDENTITY_CACHE_SIZE };
/**
 * The bound within which a link's disable or enable, an organization's deactivation and a token's
 * revocation reach every process (CHANGE_PROPAGATION_SECONDS): nothing cached about them is
 * trusted longer.
 */
export const DEFAULT_CHANGE_PROPAGATION_SECONDS = 5;
/**
 * How long past CHANGE_PROPAGATION_SECONDS a cached link and its organization are still followed
 * while the store cannot answer (STALE_IF_ERROR_SECONDS): an election (about 12 s) and short
 * outages pass unnoticed by followers.
 */
export const DEFAULT_STALE_IF_ERROR_SECONDS = 60;

export interface CacheOptions {
  /** Found links kept for following; 0 turns the link cache off. */
  linkCacheSize: number;
  /**
   * How long identity lookups are trusted (tokens and organizations at most
   * `propagationSeconds`); 0 turns the identity cache off.
   */
  identityTtlSeconds: number;
  /** Identity lookups kept per kind (default DEFAULT_IDENTITY_CACHE_SIZE). */
  identityCacheSize?: number;
  /**
   * How long a cached link, organization or token is trusted at most (default
   * DEFAULT_CHANGE_PROPAGATION_SECONDS): a change made by another process is seen within it.
   */
  propagationSeconds?: number;
  /**
   * How long past `propagationSeconds` a cached link or organization is still answered while the
   * store fails with BackendUnavailableError (default 0: never; the service's default is
   * DEFAULT_STALE_IF_ERROR_SECONDS). A change this process did not hear of may go unseen that
   * much longer, during the outage only.
   */
  staleIfErrorSeconds?: number;
  /** Monotonic milliseconds for the TTL (tests inject a clock). */
  now?: () => number;
}

/** A store with the caches in front; `backend` is the store underneath, unchanged. */
export interface CachedStore extends Store {
  readonly backend: Store;
  /** The backend's change streams the caches follow (none where it reports no changes). */
  readonly changeWatches: readonly NamedChangeWatch[];
}

/**
 * The store-agnostic caches as decorators over the store's ports: links for following, identity
 * lookups for creating. Writes (and the ids links get) always go to the backend. When the
 * backend reports changes (MongoDB change streams), every process drops at once what changed:
 * the link (by domain and alias), the organization (by id and key hash), the token, membership or
 * group, or a whole kind of identity lookup when the change names none; elsewhere the TTLs bound
 * how long a change made by another process goes unseen. While a stream advances, what it covers
 * is trusted up to TRUSTED_WHILE_STREAM_ADVANCES_SECONDS (stream-trust.ts).
 */
export function withCaches(backend: Store, options: CacheOptions): CachedStore {
  const propagationMs = (options.propagationSeconds ?? DEFAULT_CHANGE_PROPAGATION_SECONDS) * 1000;
  const now = options.now ? { now: options.now } : {};
  const staleIfErrorMs = (options.staleIfErrorSeconds ?? 0) * 1000;
  const watches: NamedChangeWatch[] = [];
  /** Trusted longer while `watch()` (set once the watch is started) advances. */
  const trustedWhile = (watch: () => ChangeWatch | undefined) => ({
    ttlMs: TRUSTED_WHILE_STREAM_ADVANCES_SECONDS * 1000,
    holds: () => streamAdvances(watch(), propagationMs),
  });
  let links = backend.links;
  if (options.linkCacheSize > 0) {
    const started: { watch?: ChangeWatch } = {};
    const cached = new CachedLinkStore(backend.links, {
      maxEntries: options.linkCacheSize,
      ttlMs: propagationMs,
      staleIfErrorMs,
      trustedWhile: trustedWhile(() => started.watch),
      ...now,
    });
    links = cached;
    const watch = backend.watchLinkChanges?.((change) => {
      if (change === 'all') cached.invalidateAll();
      else cached.invalidate(change.domain, change.alias);
    });
    started.watch = watch;
    if (watch) watches.push({ stream: 'link', watch });
  }
  let identities = backend.identities;
  if (options.identityTtlSeconds > 0) {
    const started: { watch?: ChangeWatch } = {};
    const cached = new CachedIdentityStore(backend.identities, {
      trustedWhile: trustedWhile(() => started.watch),
      ttlMs: options.identityTtlSeconds * 1000,
      propagationTtlMs: Math.min(options.identityTtlSeconds * 1000, propagationMs),
      organizationStaleIfErrorMs: staleIfErrorMs,
      maxEntries: options.identityCacheSize ?? DEFAULT_IDENTITY_CACHE_SIZE,
      ...now,
    });
    identities = cached;
    const watch = backend.watchIdentityChanges?.((change) => cached.invalidate(change));
    started.watch = watch;
    if (watch) watches.push({ stream: 'identity', watch });
  }
  return {
    kind: backend.kind,
    backend,
    changeWatches: watches,
    identities,
    links,
    // Idempotency records change on every keyed request: never cached.
    idempotency: backend.idempotency,
    // Counted visits reach the store once a second per process, off the requests' path: neither
    // cached nor timed per call.
    ...(backend.visits ? { visits: backend.visits } : {}),
    ping: () => backend.ping(),
    flush: () => backend.flush(),
    close: async () => {
      await Promise.all(watches.map(({ watch }) => watch.close()));
      await backend.close();
    },
  };
}
