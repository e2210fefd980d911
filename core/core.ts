import { allowAllUrlGuard } from './adapters/allow-all-url-guard';
import { createMemoryStore } from './adapters/memory/memory-store';
import { createNanoidAliasGenerator } from './adapters/nanoid-alias-generator';
import { CappedMemoryRateLimiter } from './adapters/rate-limit/capped-memory-rate-limiter';
import { createMemoryRateLimiter } from './adapters/rate-limit/flexible-rate-limiter';
import { systemClock } from './adapters/system-clock';
import type { CoreContext, CoreDeps, RequestContext } from './context';
import {
  DEFAULT_IDEMPOTENCY_LEASE_SECONDS,
  DEFAULT_IDEMPOTENCY_TTL_SECONDS,
} from './idempotency/idempotency-defaults';
import { reservedAliasSet } from './links/reserved-aliases';
import { silentLogger } from './ports/logger';
import { createCaller, type Caller } from './procedure/router';
import { appRouter, type AppRouter } from './router';

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 60;
export const DEFAULT_AUTH_FAILURES_PER_MINUTE = 30;
export const DEFAULT_MAX_ALIAS_ATTEMPTS = 10;
/** Client addresses the in-memory auth-failure limiter tracks at most (about 20 MB). */
export const DEFAULT_AUTH_FAILURE_TRACKED_ADDRESSES = 100_000;

export interface Core {
  readonly deps: CoreDeps;
  readonly router: AppRouter;
  /** An in-process client bound to one request's context. */
  createCaller(request?: RequestContext): Caller<AppRouter>;
  /** Resolves when the store answers (readiness). */
  ready(): Promise<void>;
}

/**
 * Builds the core from its dependencies. Every dependency has an embedded default, so
 * `createCore()` alone gives a working core on the in-memory store.
 */
export function createCore(deps: Partial<CoreDeps> = {}): Core {
  const full: CoreDeps = {
    store: deps.store ?? createMemoryStore(),
    rateLimiter:
      deps.rateLimiter ??
      createMemoryRateLimiter({ limit: DEFAULT_RATE_LIMIT_PER_MINUTE, keyPrefix: 'token' }),
    authFailureLimiter:
      deps.authFailureLimiter ??
      new CappedMemoryRateLimiter({
        limit: DEFAULT_AUTH_FAILURES_PER_MINUTE,
        maxKeys: DEFAULT_AUTH_FAILURE_TRACKED_ADDRESSES,
      }),
    urlGuard: deps.urlGuard ?? allowAllUrlGuard,
    clock: deps.clock ?? systemClock,
    aliasGenerator: deps.aliasGenerator ?? createNanoidAliasGenerator(),
    reservedAliases: deps.reservedAliases ?? reservedAliasSet(),
    maxAliasAttempts: deps.maxAliasAttempts ?? DEFAULT_MAX_ALIAS_ATTEMPTS,
    logger: deps.logger ?? silentLogger,
    idempotencyTtlSeconds: deps.idempotencyTtlSeconds ?? DEFAULT_IDEMPOTENCY_TTL_SECONDS,
    idempotencyLeaseSeconds: deps.idempotencyLeaseSeconds ?? DEFAULT_IDEMPOTENCY_LEASE_SECONDS,
  };
  return {
    deps: full,
    router: appRouter,
    createCaller(request: RequestContext = {}) {
      const ctx: CoreContext = { deps: full, request, response: request.response ?? {} };
      // A failure that says when to retry (code 23) tells the transport, as a 429 does.
      return createCaller(appRouter, ctx, (failure) => {
        ctx.response.retryAfterSeconds ??= failure.retryAfterSeconds;
      });
    },
    ready: () => full.store.ping(),
  };
}
