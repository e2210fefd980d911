/** The shortlink core library: embed it with `createCore()` and call `createCaller(...)`. */
export { createCore, type Core } from './core';
export type { CoreDeps, RequestContext, ResponseInfo } from './context';
export { appRouter, type AppRouter } from './router';
export { ErrorCode, reasonOf, type ErrorCodeNumber, type ErrorReason } from './errors/error-codes';
export {
  ShortlinkError,
  BackendUnavailableError,
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
  FlexibleRateLimiter,
  createMemoryRateLimiter,
} from './adapters/rate-limit/flexible-rate-limiter';
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
export { createRuntime, type Runtime } from './runtime/create-runtime';
export { createMongoStore, createMongoRateLimiters, type MongoStore } from './adapters/mongodb';
export { createLmdbStore, DataDirError, FORMAT_VERSION, type LmdbStore } from './adapters/lmdb';
export { createRedisLimiters } from './adapters/redis/redis-limiters';
export { createUrlGuardChain } from './url-guard/url-guard-chain';
export { createUrlGuardFromConfig } from './runtime/url-guard-from-config';
export { rateLimitFields } from './rate-limit/rate-limit-fields';
export {
  ShortlinkMetrics,
  type Gateway,
  type Operation,
  type OperationMetrics,
  type LimiterName,
  type LimiterBackendState,
  type SafeBrowsingResult,
} from './metrics/shortlink-metrics';
export { timedStore } from './metrics/timed-store';
export { observedRateLimiter } from './metrics/observed-rate-limiter';
