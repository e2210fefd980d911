import { LMDB_STORE_KIND } from '../adapters/lmdb/lmdb-store';
import { MEMORY_STORE_KIND } from '../adapters/memory/memory-store';
import { createNanoidAliasGenerator } from '../adapters/nanoid-alias-generator';
import { systemClock } from '../adapters/system-clock';
import type { Store } from '../ports/store';
import { createCore, type Core } from '../core';
import { reservedAliasSet } from '../links/reserved-aliases';
import { silentLogger, type Logger } from '../ports/logger';
import { provisionDemo, type DemoCredentials } from '../provisioning/demo';
import { Provisioner } from '../provisioning/provisioner';
import { loadSeedFile } from '../provisioning/seed-file';
import { observedRateLimiter } from '../metrics/observed-rate-limiter';
import { ShortlinkMetrics } from '../metrics/shortlink-metrics';
import { timedStore } from '../metrics/timed-store';
import { VisitCounter } from '../visits/visit-counter';
import type { Config } from './config';
import { cachedStoreFromConfig } from './caches-from-config';
import { createLimitersFromConfig, type LocalLimits } from './limiters-from-config';
import { claimServedDataDir } from './data-dir-claim';
import { createStoreFromConfig } from './store-from-config';
import { invalidationsFromConfig } from './invalidations-from-config';
import { createUrlGuardFromConfig } from './url-guard-from-config';

/** Stores started with a demo when empty: the embedded ones, never a shared MongoDB. */
const EMBEDDED_STORE_KINDS: ReadonlySet<string> = new Set([MEMORY_STORE_KIND, LMDB_STORE_KIND]);

/** Logged at start-up when the embedded store already holds organizations (no new demo). */
export const NO_DEMO_MESSAGE = 'the store already holds organizations: no demo provisioned';
/**
 * Said with NO_DEMO_MESSAGE: the demo's secrets were printed at its first start only, and a
 * person who restarts without them needs to know how to get new ones.
 */
export const NEW_CREDENTIALS_HINT =
  'secrets are shown only when made: for a new token run `npm run admin -- token create --user demo`, ' +
  'for a new organization key `npm run admin -- org rotate-key --id demo` (another user or ' +
  'organization by its id), or start on an empty DATA_DIR for a new demo';
/** Logged at start-up once SHORTLINK_SEED_FILE has been applied (no demo then). */
export const SEED_FILE_APPLIED_MESSAGE = 'seed file applied';

export interface Runtime {
  readonly core: Core;
  readonly config: Config;
  /**
   * True when the embedded store (memory or LMDB) holds no organization and no seed file is
   * configured: start-up shows a demo. On LMDB that is the first start on an empty DATA_DIR; the
   * demo then stays, and later starts make none.
   */
  readonly wantsDemo: boolean;
  /** The service's metrics; undefined when METRICS_PORT is 0 (nothing is measured then). */
  readonly metrics: ShortlinkMetrics | undefined;
  /** Creates the demo organization (link domain `localhost:<port>`), group "1" and a token. */
  provisionDemo(port: number): Promise<DemoCredentials>;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** Where limits are counted without Redis or MongoDB ('cluster' in a WORKERS worker). */
  localLimits?: LocalLimits;
  /**
   * Whether this process applies SHORTLINK_SEED_FILE (default true). With WORKERS only the first
   * worker does: a later worker, or the replacement of a crashed one, would otherwise apply the
   * file again while the service runs, undoing what the admin CLI changed since the start (a
   * deactivated organization, a rotated key, a revoked token the file still lists).
   */
  applySeedFile?: boolean;
  /**
   * The store to serve from instead of the one the configuration names: one the caller built
   * (say `mongoStoreOn` over a client it holds, or a fake of one in tests). The runtime wraps it
   * as it would its own (caches, metrics; the MongoDB limiters share a MongoDB store's client)
   * and closes it with the rest.
   */
  backend?: Store;
}

/**
 * Everything an entry point serves from: builds the store, the limiters and the URL guard the
 * configuration asks for, then the core, then provisions (seed file or demo). The service's
 * composition root (start-service.ts) and the bench build on it. Without a logger it logs
 * nothing, as createCore.
 */
export async function createRuntime(
  config: Config,
  logger: Logger = silentLogger,
  options: RuntimeOptions = {},
): Promise<Runtime> {
  const closers: Array<() => Promise<void>> = [];
  // In reverse order of opening; one that fails does not keep the rest open (the DATA_DIR
  // claim, released last, would otherwise outlive a store whose close failed). The first failure
  // is rethrown once all have run.
  const closeAll = async () => {
    let failure: { error: unknown } | undefined;
    for (const close of [...closers].reverse()) {
      await close().catch((error: unknown) => (failure ??= { error }));
    }
    if (failure) throw failure.error;
  };
  try {
    const metrics = config.METRICS_PORT === 0 ? undefined : new ShortlinkMetrics();
    // A WORKERS worker's primary has claimed the directory for the whole cluster.
    if (options.localLimits !== 'cluster') {
      const claim = await claimServedDataDir(config, logger);
      closers.push(() => claim.release());
    }
    const backend = options.backend ?? (await createStoreFromConfig(config, logger));
    const watched = invalidationsFromConfig(backend, config, logger);
    // The caches wrap the store once here, over the timing: a cache hit is not a store call.
    // The limiters share the backend's own client.
    const store = cachedStoreFromConfig(metrics ? timedStore(watched, metrics) : watched, config);
    closers.push(() => store.close());
    const limiters = await createLimitersFromConfig(config, logger, backend, options.localLimits);
    closers.push(() => limiters.close());
    const urlGuard = await createUrlGuardFromConfig(config, logger, store, metrics);
    closers.push(() => urlGuard.close());
    if (metrics && limiters.backendState) metrics.followLimiterBackend(limiters.backendState);
    metrics?.followChangeStreams(store.changeWatches);

    // Closed before the store (closers run in reverse): its close sends what it still holds.
    const visitCounter = new VisitCounter({
      store: store.visits,
      clock: systemClock,
      flushSeconds: config.VISITS_FLUSH_SECONDS,
      pendingMax: config.VISITS_PENDING_MAX,
      logger,
      onDropped: metrics?.visitsDropped(),
    });
    visitCounter.start();
    closers.push(() => visitCounter.close());

    // Metrics are decorators over the ports: the procedures never know they are measured.
    const core = createCore({
      store,
      rateLimiter: metrics
        ? observedRateLimiter(limiters.perToken, 'token', metrics)
        : limiters.perToken,
      authFailureLimiter: metrics
        ? observedRateLimiter(limiters.authFailures, 'auth_failures', metrics)
        : limiters.authFailures,
      followMissLimiter:
        metrics && limiters.followMisses
          ? observedRateLimiter(limiters.followMisses, 'follow_misses', metrics)
          : limiters.followMisses,
      urlGuard: urlGuard.guard,
      followGuard: urlGuard.followGuard,
      // Counts each change of a link's state this process makes (disable, enable).
      linkEvents: metrics?.linkEvents(),
      clock: systemClock,
      visitCounter,
      aliasGenerator: createNanoidAliasGenerator(),
      reservedAliases: reservedAliasSet(config.RESERVED_ALIASES),
      logger,
      idempotencyTtlSeconds: config.IDEMPOTENCY_TTL_SECONDS,
      idempotencyLeaseSeconds: config.IDEMPOTENCY_LEASE_SECONDS,
      linkDomainsRefreshSeconds: config.LINK_DOMAINS_REFRESH_SECONDS,
    });

    const provisioner = new Provisioner(store, systemClock);
    if (config.SHORTLINK_SEED_FILE && (options.applySeedFile ?? true)) {
      const counts = await loadSeedFile(provisioner, config.SHORTLINK_SEED_FILE);
      logger.info({ ...counts, file: config.SHORTLINK_SEED_FILE }, SEED_FILE_APPLIED_MESSAGE);
      urlGuard.linkDomainsChanged();
    }
    const wantsDemo =
      !config.SHORTLINK_SEED_FILE &&
      EMBEDDED_STORE_KINDS.has(store.kind) &&
      (await store.identities.listLinkDomains()).length === 0;
    if (!wantsDemo && !config.SHORTLINK_SEED_FILE && EMBEDDED_STORE_KINDS.has(store.kind)) {
      logger.info({ store: store.kind, credentials: NEW_CREDENTIALS_HINT }, NO_DEMO_MESSAGE);
    }
    return {
      core,
      config,
      wantsDemo,
      metrics,
      provisionDemo: async (port) => {
        const demo = await provisionDemo(provisioner, port);
        urlGuard.linkDomainsChanged();
        return demo;
      },
      close: closeAll,
    };
  } catch (error) {
    await closeAll().catch(() => undefined);
    throw error;
  }
}
