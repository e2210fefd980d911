import type { GeneratedAliasLengths } from './links/generated-alias-lengths';
import type { LinkDomainDirectory } from './links/link-domain-directory';
import type { AliasGenerator } from './ports/alias-generator';
import type { Clock } from './ports/clock';
import type { Logger } from './ports/logger';
import type { RateLimiter, RateLimitState } from './ports/rate-limiter';
import type { Store } from './ports/store';
import type { UrlGuard } from './ports/url-guard';
import type { VisitCounter } from './visits/visit-counter';

/** Everything the procedures depend on, passed once to createCore. */
export interface CoreDeps {
  store: Store;
  /** Per-token budget (60 per minute by default). */
  rateLimiter: RateLimiter;
  /** Per-client-address budget of failed token checks (30 per minute by default). */
  authFailureLimiter: RateLimiter;
  /**
   * Per-client-address budget of unknown aliases followed (60 per minute by default); null: none.
   * Its `knownRefusal`, when it has one, lets following refuse an address past its budget without
   * reading the store.
   */
  followMissLimiter: RateLimiter | null;
  urlGuard: UrlGuard;
  /**
   * The local anti-phishing rules a link's target must still pass to be followed (blocklist
   * file, blocked shorteners, the service's own link domains): checked on every follow, so no
   * network lookup. A target it refuses now is answered 410 (LINK_DISABLED).
   */
  followGuard: UrlGuard;
  /** Told of every change of a link's state (the metrics count them); optional. */
  linkEvents?: LinkEvents | undefined;
  clock: Clock;
  /**
   * Gathers every redirect in memory and sends the counts to the store's visits in the
   * background; whoever builds the core closes it at stop (close() sends what it holds).
   */
  visitCounter: VisitCounter;
  aliasGenerator: AliasGenerator;
  /** Aliases nobody may take, compared case-insensitively (createCore lower-cases them). */
  reservedAliases: ReadonlySet<string>;
  /** How many generated aliases are tried before giving up (collisions are retried). */
  maxAliasAttempts: number;
  logger: Logger;
  /** How long a completed idempotency record is replayed (IDEMPOTENCY_TTL_SECONDS). */
  idempotencyTtlSeconds: number;
  /**
   * How long a running idempotency record holds its key without a renewal (the request renews it
   * every third of it while it runs): a process that dies mid-request leaves the key blocked
   * (IDEMPOTENCY_KEY_IN_USE) only this long (IDEMPOTENCY_LEASE_SECONDS).
   */
  idempotencyLeaseSeconds: number;
  /**
   * How long following trusts its in-memory list of link domains before it reloads it, in the
   * background (LINK_DOMAINS_REFRESH_SECONDS).
   */
  linkDomainsRefreshSeconds: number;
}

/**
 * Changes of a link's state made through this core (by members: the procedures). The admin CLI is
 * a process of its own, which tells no running server: its changes are in each link's history.
 */
export interface LinkEvents {
  stateChanged(change: 'disabled' | 'enabled'): void;
}

/** What a transport knows about one request. */
export interface RequestContext {
  /** The raw `Authorization` value (`Bearer <token>`), or undefined when absent. */
  authorization?: string | null | undefined;
  /** The client's address; failed token checks and unknown aliases are limited per address. */
  clientAddress?: string | undefined;
  /**
   * Where a failure that is the service's fault (INTERNAL and BACKEND_UNAVAILABLE) is logged, once,
   * by the core: a logger bound to this request (its id, its RPC) when the transport has one; else
   * the core's.
   */
  logger?: Logger | undefined;
  /**
   * The raw idempotency key (REST `Idempotency-Key`, gRPC `idempotency-key`); absent: none. A
   * transport that received the key more than once passes every value (malformed,
   * IDEMPOTENCY_KEY_INVALID).
   */
  idempotencyKey?: string | readonly string[] | null | undefined;
  /** Filled in by the core for the transport to render (rate-limit headers or metadata). */
  response?: ResponseInfo | undefined;
}

export interface ResponseInfo {
  rateLimit?: RateLimitInfo;
  retryAfterSeconds?: number;
  /** True when the answer is a recorded one, replayed for a repeated idempotency key. */
  idempotentReplayed?: boolean;
}

/** The per-token budget after this request, and the length of its window. */
export interface RateLimitInfo extends RateLimitState {
  windowSeconds: number;
}

/** What following keeps in memory between requests, made once by createCore from the deps. */
/** What creating learns as it goes: how long each domain's generated aliases are. */
export interface CreatingState {
  aliasLengths: GeneratedAliasLengths;
}

export interface FollowingState {
  /** The domains links are stored under, so a Host is resolved to one without the store. */
  domains: LinkDomainDirectory;
}

export interface CoreContext {
  deps: CoreDeps;
  following: FollowingState;
  creating: CreatingState;
  request: RequestContext;
  response: ResponseInfo;
}
