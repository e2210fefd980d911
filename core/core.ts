import { allowAllUrlGuard } from './adapters/allow-all-url-guard';
import { checkedClock } from './adapters/checked-clock';
import { createMemoryStore } from './adapters/memory/memory-store';
import { createNanoidAliasGenerator } from './adapters/nanoid-alias-generator';
import { CappedMemoryRateLimiter } from './adapters/rate-limit/capped-memory-rate-limiter';
import { createMemoryRateLimiter } from './adapters/rate-limit/flexible-rate-limiter';
import { systemClock } from './adapters/system-clock';
import type {
  CoreContext,
  CoreDeps,
  FollowingState,
  RequestContext,
  ResponseInfo,
} from './context';
import { checkCoreNumbers } from './core-options';
import {
  DEFAULT_IDEMPOTENCY_LEASE_SECONDS,
  DEFAULT_IDEMPOTENCY_TTL_SECONDS,
} from './idempotency/idempotency-defaults';
import {
  DEFAULT_LINK_DOMAINS_REFRESH_SECONDS,
  LinkDomainDirectory,
} from './links/link-domain-directory';
import { reservedAliasSet } from './links/reserved-aliases';
import type { Clock } from './ports/clock';
import { silentLogger, type Logger } from './ports/logger';
import {
  createCaller,
  type Caller,
  type CallerOptions,
  type UntypedCaller,
} from './procedure/router';
import {
  DEFAULT_AUTH_FAILURE_TRACKED_ADDRESSES,
  DEFAULT_AUTH_FAILURES_PER_MINUTE,
  DEFAULT_FOLLOW_MISSES_PER_MINUTE,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  LIMITER_KEY_PREFIX,
} from './rate-limit/limits';
import { appRouter, type AppRouter } from './router';
import {
  DEFAULT_VISITS_FLUSH_SECONDS,
  DEFAULT_VISITS_PENDING_MAX,
  VisitCounter,
} from './visits/visit-counter';

const DEFAULT_MAX_ALIAS_ATTEMPTS = 10;

export interface Core {
  readonly deps: CoreDeps;
  /** An in-process client bound to one request's context, typed for code that builds inputs. */
  createCaller(request?: RequestContext): Caller<AppRouter>;
  /**
   * The same client for transports, whose inputs are whatever they decoded: each procedure takes
   * `unknown` and validates it (the typed caller's procedures validate too).
   */
  createUntypedCaller(request?: RequestContext): UntypedCaller<AppRouter>;
  /** Resolves when the store answers (readiness). */
  ready(): Promise<void>;
}

/**
 * Builds the core from its dependencies. Every dependency has an embedded default, so
 * `createCore()` alone gives a working core on the in-memory store.
 */
export function createCore(deps: Partial<CoreDeps> = {}): Core {
  const store = deps.store ?? createMemoryStore();
  const clock = deps.clock ? checkedClock(deps.clock) : systemClock;
  const logger = deps.logger ?? silentLogger;
  const full: CoreDeps = {
    store,
    rateLimiter:
      deps.rateLimiter ??
      createMemoryRateLimiter({
        limit: DEFAULT_RATE_LIMIT_PER_MINUTE,
        keyPrefix: LIMITER_KEY_PREFIX.perToken,
      }),
    authFailureLimiter:
      deps.authFailureLimiter ??
      new CappedMemoryRateLimiter({
        limit: DEFAULT_AUTH_FAILURES_PER_MINUTE,
        maxKeys: DEFAULT_AUTH_FAILURE_TRACKED_ADDRESSES,
      }),
    // null turns the budget off; only undefined takes the default.
    followMissLimiter:
      deps.followMissLimiter === undefined
        ? new CappedMemoryRateLimiter({
            limit: DEFAULT_FOLLOW_MISSES_PER_MINUTE,
            maxKeys: DEFAULT_AUTH_FAILURE_TRACKED_ADDRESSES,
          })
        : deps.followMissLimiter,
    urlGuard: deps.urlGuard ?? allowAllUrlGuard,
    followGuard: deps.followGuard ?? allowAllUrlGuard,
    linkEvents: deps.linkEvents,
    clock,
    visitCounter: deps.visitCounter ?? defaultVisitCounter(store, clock, logger),
    aliasGenerator: deps.aliasGenerator ?? createNanoidAliasGenerator(),
    // Compared in lower case: a set given with capitals ("Admin") would otherwise reserve nothing.
    reservedAliases: deps.reservedAliases
      ? new Set([...deps.reservedAliases].map((alias) => alias.toLowerCase()))
      : reservedAliasSet(),
    maxAliasAttempts: deps.maxAliasAttempts ?? DEFAULT_MAX_ALIAS_ATTEMPTS,
    logger,
    idempotencyTtlSeconds: deps.idempotencyTtlSeconds ?? DEFAULT_IDEMPOTENCY_TTL_SECONDS,
    idempotencyLeaseSeconds: deps.idempotencyLeaseSeconds ?? DEFAULT_IDEMPOTENCY_LEASE_SECONDS,
    linkDomainsRefreshSeconds:
      deps.linkDomainsRefreshSeconds ?? DEFAULT_LINK_DOMAINS_REFRESH_SECONDS,
  };
  checkCoreNumbers(full);
  const following: FollowingState = {
    domains: new LinkDomainDirectory(full.store.links, {
      refreshMs: full.linkDomainsRefreshSeconds * 1000,
      logger: full.logger,
    }),
  };
  // The hooks every caller shares: each call hands them its own context.
  const callerOptions: CallerOptions<CoreContext> = {
    // A caller reused for several calls: `response` tells of the latest call alone. One the
    // core could not fill in (frozen, not an object) fails the call before anything is done.
    onCall: (ctx) => {
      if (!Object.isExtensible(ctx.response)) {
        throw new TypeError("the request context's response must be an object the core can write");
      }
      for (const field of Object.keys(ctx.response) as (keyof ResponseInfo)[]) {
        delete ctx.response[field];
      }
    },
    onError: (failure, path, ctx) => {
      // Logged first: should the write below fail, the caller still gets its failure, and the
      // fault is not lost.
      if (failure.isServerFault) {
        (ctx.request.logger ?? full.logger).error(
          { err: failure.cause ?? failure, procedure: path },
          `${path} failed`,
        );
      }
      // A failure that says when to retry (BACKEND_UNAVAILABLE) tells the transport, as a 429
      // does.
      ctx.response.retryAfterSeconds ??= failure.retryAfterSeconds;
    },
    // What the stages added for the transport, returned rather than written by them: the
    // token's rate-limit state and the replay mark.
    onSettled: (settledCtx, ctx) => {
      const { rateLimit, idempotentReplayed } = settledCtx as ResponseInfo;
      if (rateLimit) ctx.response.rateLimit = rateLimit;
      if (idempotentReplayed) ctx.response.idempotentReplayed = true;
    },
  };
  // `null` from plain JavaScript is no request context either (a default applies to undefined only).
  const bind = (given: RequestContext | null | undefined) => {
    const request = given ?? {};
    const ctx: CoreContext = { deps: full, following, request, response: request.response ?? {} };
    return createCaller(appRouter, ctx, callerOptions);
  };
  return {
    deps: full,
    createCaller: (request) => bind(request),
    createUntypedCaller: (request) => bind(request),
    ready: () => full.store.ping(),
  };
}

/**
 * An embedder's counter, with the service's defaults, started: its timer keeps no process alive,
 * and `core.deps.visitCounter.close()` sends what it still holds.
 */
function defaultVisitCounter(store: CoreDeps['store'], clock: Clock, logger: Logger): VisitCounter {
  const counter = new VisitCounter({
    store: store.visits,
    clock,
    flushSeconds: DEFAULT_VISITS_FLUSH_SECONDS,
    pendingMax: DEFAULT_VISITS_PENDING_MAX,
    logger,
  });
  counter.start();
  return counter;
}
