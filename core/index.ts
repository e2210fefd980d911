/**
 * `shortlink`, the core library: embed it with `createCore()` and call `createCaller(...)`.
 * This entry loads no database or network driver; the adapters that do are subpaths of their own
 * (`shortlink/mongodb`, `shortlink/redis`, `shortlink/lmdb`) and so is the environment-driven
 * process (`shortlink/runtime`). test/package/entry-points.test.ts holds it to that.
 */
export { createCore, type Core } from './core';
export type { CoreDeps, RequestContext, ResponseInfo } from './context';
export { appRouter, type AppRouter } from './router';
export {
  ERROR_CATALOGUE,
  ERROR_REASONS,
  ErrorCode,
  reasonOf,
  reasonsWith,
  type ErrorCodeNumber,
  type ErrorEntry,
  type ErrorReason,
} from './errors/error-catalogue';
export {
  ShortlinkError,
  BackendUnavailableError,
  LinkDomainTakenError,
  GroupExistsError,
  OrganizationExistsError,
  OrganizationKeyTakenError,
  UserExistsError,
  TokenTakenError,
  BACKEND_RETRY_AFTER_SECONDS,
  toShortlinkError,
} from './errors/shortlink-error';
export type * from './ports';
export { silentLogger } from './ports/logger';
export type { ShortLink } from './links/short-link';
export type { LinkView } from './links/link-view';
export { toPublicLinkView, type PublicLinkView } from './links/public-link-view';
export type { LinkPage, ListLinksRequest } from './links/list-links';
export type { GetLinkRequest } from './links/get-link';
export type { DisableLinkRequest, EnableLinkRequest } from './links/disable-link';
export type { UpdateLinkRequest } from './links/update-link-input';
export type { LinkHistoryPage, LinkHistoryRequest } from './links/link-history';
export type { LinkVisitsRequest } from './links/link-visits';
export type { DayVisitsView, LinkVisitsView, VisitCountsView } from './links/visit-days';
export type { LinkHistoryView } from './links/history-view';
export type { CreateLinkField, CreateLinkRequest } from './links/create-link-input';
export type { ResolveLinkRequest } from './links/resolve-link';
export { UndecodableBody } from './links/undecodable-body';
export { redirectCaching, type RedirectCaching } from './links/redirect-caching';
export { reservedAliasSet, BUILT_IN_RESERVED_ALIASES } from './links/reserved-aliases';
export { createMemoryStore, type MemoryStore } from './adapters/memory/memory-store';
export {
  withCaches,
  DEFAULT_LINK_CACHE_SIZE,
  DEFAULT_IDENTITY_CACHE_TTL_SECONDS,
  DEFAULT_IDENTITY_CACHE_SIZE,
  DEFAULT_CHANGE_PROPAGATION_SECONDS,
  type CachedStore,
  type CacheOptions,
} from './caches/cached-store';
export {
  FlexibleRateLimiter,
  createMemoryRateLimiter,
} from './adapters/rate-limit/flexible-rate-limiter';
export { CappedMemoryRateLimiter } from './adapters/rate-limit/capped-memory-rate-limiter';
export {
  rememberingRefusals,
  type RememberedRefusalsOptions,
} from './adapters/rate-limit/remembered-refusals';
export { createNanoidAliasGenerator } from './adapters/nanoid-alias-generator';
export { allowAllUrlGuard } from './adapters/allow-all-url-guard';
export { systemClock } from './adapters/system-clock';
export { hashSecret, generateToken, generateOrganizationKey } from './auth/secrets';
export { Provisioner } from './provisioning/provisioner';
export type { ProvisioningStores } from './provisioning/domain-links';
export { ProvisioningError } from './provisioning/provisioning-error';
export { applySeed, loadSeedFile, type Seed } from './provisioning/seed-file';
export { provisionDemo, demoCurl, demoGrpcurl, type DemoCredentials } from './provisioning/demo';
export { createUrlGuardChain } from './url-guard/url-guard-chain';
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
