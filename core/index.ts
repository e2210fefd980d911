/** The shortlink core library: embed it with `createCore()` and call `createCaller(...)`. */
export { createCore, type Core } from './core';
export type { CoreDeps, RequestContext, ResponseInfo } from './context';
export { appRouter, type AppRouter } from './router';
export { ErrorCode, reasonOf, type ErrorCodeNumber, type ErrorReason } from './errors/error-codes';
export {
  ShortlinkError,
  BackendUnavailableError,
  LinkDomainTakenError,
  BACKEND_RETRY_AFTER_SECONDS,
  toShortlinkError,
} from './errors/shortlink-error';
export type * from './ports';
export { silentLogger } from './ports/logger';
export type { ShortLink } from './links/short-link';
export type { CreateLinkRequest } from './links/create-link-input';
export type { ResolveLinkRequest } from './links/resolve-link';
export { UndecodableBody } from './links/undecodable-body';
export { reservedAliasSet, BUILT_IN_RESERVED_ALIASES } from './links/reserved-aliases';
export { createMemoryStore, type MemoryStore } from './adapters/memory/memory-store';
export {
  withCaches,
  DEFAULT_LINK_CACHE_SIZE,
  DEFAULT_IDENTITY_CACHE_TTL_SECONDS,
  type CachedStore,
  type CacheOptions,
} from './caches/cached-store';
export {
  FlexibleRateLimiter,
  createMemoryRateLimiter,
} from './adapters/rate-limit/flexible-rate-limiter';
export { CappedMemoryRateLimiter } from './adapters/rate-limit/capped-memory-rate-limiter';
export { createNanoidAliasGenerator } from './adapters/nanoid-alias-generator';
export { allowAllUrlGuard } from './adapters/allow-all-url-guard';
export { systemClock } from './adapters/system-clock';
export { hashSecret, generateToken, generateOrganizationKey } from './auth/secrets';
export { Provisioner, ProvisioningError } from './provisioning/provisioner';
export { applySeed, loadSeedFile, type Seed } from './provisioning/seed-file';
export { provisionDemo, demoCurl, demoGrpcurl, type DemoCredentials } from './provisioning/demo';
export {
  loadConfig,
  type Config,
  ConfigError,
  DEFAULT_DATA_DIR,
  IN_MEMORY_DATA_DIR,
} from './runtime/config';
export { compileTrustProxy, type TrustProxy } from './runtime/trust-proxy';
export {
  hostSetting,
  listSetting,
  optionalTextSetting,
  parseSettings,
  portSetting,
  positiveSetting,
  trustProxySetting,
} from './runtime/settings';
export { createRuntime, type Runtime, type RuntimeOptions } from './runtime/create-runtime';
export type {
  Gateway,
  GatewayContext,
  GatewayFactory,
  Listening,
  Readiness,
} from './runtime/gateway';
export {
  startService,
  drainTimeoutMs,
  DRAIN_SHARE,
  type RunningService,
  type ServiceOptions,
} from './runtime/start-service';
export { superviseWorkers, type Supervisor } from './runtime/cluster/supervise-workers';
export { refuseUnsharedStore } from './runtime/cluster/shared-store-check';
export {
  WORKER_READY,
  WORKER_ROLE_ENV,
  type WorkerReady,
  type WorkerRole,
} from './runtime/cluster/worker-messages';
export { createMongoStore, createMongoRateLimiters, type MongoStore } from './adapters/mongodb';
export { createLmdbStore, DataDirError, FORMAT_VERSION, type LmdbStore } from './adapters/lmdb';
export { createRedisLimiters } from './adapters/redis/redis-limiters';
export { createUrlGuardChain } from './url-guard/url-guard-chain';
export { createUrlGuardFromConfig } from './runtime/url-guard-from-config';
export { rateLimitFields } from './rate-limit/rate-limit-fields';
export {
  ShortlinkMetrics,
  type GatewayLabel,
  type Operation,
  type OperationMetrics,
  type LimiterName,
  type LimiterBackendState,
  type SafeBrowsingResult,
} from './metrics/shortlink-metrics';
export { timedStore } from './metrics/timed-store';
export { observedRateLimiter } from './metrics/observed-rate-limiter';
export { idempotencyFields, IDEMPOTENT_REPLAYED_FIELD } from './idempotency/idempotency-fields';
export {
  DEFAULT_IDEMPOTENCY_TTL_SECONDS,
  DEFAULT_IDEMPOTENCY_LEASE_SECONDS,
} from './idempotency/idempotency-defaults';
export { MAX_IDEMPOTENCY_KEY_LENGTH } from './idempotency/idempotency-key';
