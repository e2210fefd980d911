import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { LinkEvents } from '../context';
import type { ChangeWatch, ChangeWatchStatus } from '../ports/store';
import { ErrorCode } from '../errors/error-catalogue';
import {
  GAUGES,
  registerCounters,
  registerHistograms,
  type Counters,
  type Histograms,
} from './metric-definitions';

/** Which transport answered; the only values of the `gateway` label. */
export type GatewayLabel = 'rest' | 'grpc';
/**
 * What was asked for; the only values of the `operation` label. `get`, `list`, `disable`,
 * `enable`, `update` and `history` are the calls of the links procedures of those names.
 */
export type Operation =
  | 'create'
  | 'follow'
  | 'resolve'
  | 'get'
  | 'list'
  | 'disable'
  | 'enable'
  | 'update'
  | 'history'
  | 'visits';
/**
 * Which budget refused a request: a token's, a client address's failed token checks, or a client
 * address's unknown aliases followed.
 */
export type LimiterName = 'token' | 'auth_failures' | 'follow_misses';
/** How a reputation lookup was answered. */
export type SafeBrowsingResult = 'cache_hit' | 'miss' | 'error' | 'throttled';
/** Where the Redis limiters count: in Redis, or per process while Redis is away. */
export type LimiterBackendState = 'shared' | 'fallback';
/** A change stream the caches follow, by the name of its `stream` label. */
export interface NamedChangeWatch {
  stream: 'link' | 'identity';
  watch: ChangeWatch;
}
/** Every value of the change streams' `state` label. */
const CHANGE_WATCH_STATES: ReadonlyArray<ChangeWatchStatus['state']> = [
  'open',
  'failed',
  'unavailable',
];
/** How a follow ended; the only values of the `outcome` label. */
type FollowOutcome = 'redirect' | 'not_found' | 'gone' | 'rate_limited' | 'error';
/** A change of a link's state; the only values of its label. */
type LinkStateChange = Parameters<LinkEvents['stateChanged']>[0];

/** Every value of a label, from a record the compiler keeps complete as the type grows. */
const valuesOf = <T extends string>(all: Record<T, true>): readonly T[] => Object.keys(all) as T[];

const FOLLOW_OUTCOMES = valuesOf<FollowOutcome>({
  redirect: true,
  not_found: true,
  gone: true,
  rate_limited: true,
  error: true,
});
const LINK_STATE_CHANGES = valuesOf<LinkStateChange>({ disabled: true, enabled: true });

/** The outcome of a follow answered with the contract code `code` (0: the link answered). */
export function followOutcomeOf(code: number): FollowOutcome {
  switch (code) {
    case 0:
      return 'redirect';
    case ErrorCode.NOT_FOUND:
      return 'not_found';
    // The 410s: a link not to be followed, or expired (by date or by visits).
    case ErrorCode.LINK_DISABLED:
    case ErrorCode.LINK_EXPIRED:
      return 'gone';
    case ErrorCode.RATE_LIMITED:
      return 'rate_limited';
    default:
      return 'error';
  }
}

const GATEWAY_OPERATIONS: ReadonlyArray<readonly [GatewayLabel, Operation]> = [
  ['rest', 'create'],
  ['rest', 'follow'],
  ['grpc', 'create'],
  ['grpc', 'resolve'],
  ['grpc', 'get'],
  ['grpc', 'list'],
  ['grpc', 'disable'],
  ['grpc', 'enable'],
  ['grpc', 'update'],
  ['grpc', 'history'],
  ['grpc', 'visits'],
];

/** prom-client's default metrics that `promtool check metrics` reports as misnamed. */
const LINT_FAILING_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** Counts and times one operation on one gateway; `startedAt` is a `performance.now()` reading. */
export interface OperationMetrics {
  observe(code: number, startedAt: number): void;
}

/** Times one backend call; `startedAt` is a `performance.now()` reading. */
export interface CallTimer {
  observe(startedAt: number): void;
}

function secondsSince(startedAt: number): number {
  return (performance.now() - startedAt) / 1000;
}

function timer(observe: (seconds: number) => void): CallTimer {
  return { observe: (startedAt) => observe(secondsSince(startedAt)) };
}

/**
 * Every metric the service exports, on one registry (never prom-client's global one, so several
 * services can live in one process, as in tests). Labels take only the bounded values typed
 * above plus the contract's numeric codes, store operations and URL-guard rule names: never an
 * alias, URL, token, key or organization.
 *
 * Each metric sums across processes, so prom-client's cluster aggregator, which adds the
 * workers' samples together, gives the right total for all of them.
 */
export class ShortlinkMetrics {
  readonly registry: Registry;
  private readonly counters: Counters;
  private readonly histograms: Histograms;

  constructor(options: { registry?: Registry; processMetrics?: boolean } = {}) {
    const registry = options.registry ?? new Registry();
    this.registry = registry;
    this.counters = registerCounters(registry);
    this.histograms = registerHistograms(registry);
    // Series that exist from the start read 0 rather than missing until their first event.
    for (const [gateway, operation] of GATEWAY_OPERATIONS) {
      this.counters.requests.series({ gateway, operation, code: '0' });
      this.histograms.requestDuration.series({ gateway, operation });
    }
    for (const gateway of ['rest', 'grpc'] as const) {
      this.counters.linksCreated.series({ gateway });
      this.counters.idempotentReplays.series({ gateway });
    }
    for (const limiter of ['token', 'auth_failures', 'follow_misses'] as const) {
      this.counters.rateLimitRefusals.series({ limiter });
    }
    for (const gateway of ['rest', 'grpc'] as const) {
      for (const outcome of FOLLOW_OUTCOMES) this.counters.follows.series({ gateway, outcome });
    }
    for (const change of LINK_STATE_CHANGES) this.counters.linkStateChanges.series({ change });
    if (options.processMetrics ?? true) {
      collectDefaultMetrics({ register: registry });
      // Gauges named like counters, which promtool's lint refuses; the same figures stay
      // available by type in nodejs_active_handles, nodejs_active_requests, nodejs_active_resources.
      for (const name of LINT_FAILING_DEFAULTS) registry.removeSingleMetric(name);
    }
  }

  /** Counts and times `operation` on `gateway`, with the label children bound once. */
  operation(gateway: GatewayLabel, operation: Operation): OperationMetrics {
    const duration = this.histograms.requestDuration.series({ gateway, operation });
    const byCode = new Map<number, () => void>();
    return {
      observe: (code, startedAt) => {
        duration(secondsSince(startedAt));
        let counter = byCode.get(code);
        if (!counter) {
          counter = this.counters.requests.series({ gateway, operation, code: String(code) });
          byCode.set(code, counter);
        }
        counter();
      },
    };
  }

  linkCreatedOn(gateway: GatewayLabel): () => void {
    return this.counters.linksCreated.series({ gateway });
  }

  /** Where an idempotent replay is answered: counts it. */
  replayedOn(gateway: GatewayLabel): () => void {
    return this.counters.idempotentReplays.series({ gateway });
  }

  /**
   * Counts follows on `gateway` by their outcome: call the answer with the contract code a follow
   * was answered with (0 when the link answered). REST counts GET and HEAD /<alias>, gRPC
   * ResolveShortLink.
   */
  follows(gateway: GatewayLabel): (code: number) => void {
    const byOutcome = new Map(
      FOLLOW_OUTCOMES.map((outcome) => [
        outcome,
        this.counters.follows.series({ gateway, outcome }),
      ]),
    );
    return (code) => byOutcome.get(followOutcomeOf(code))?.();
  }

  /** Counts visits the visit counter dropped (VisitCounterOptions.onDropped). */
  visitsDropped(): (visits: number) => void {
    const dropped = this.counters.visitsDropped.series({});
    return (visits) => {
      for (let i = 0; i < visits; i += 1) dropped();
    };
  }

  /** What the core tells of each change of a link's state (CoreDeps.linkEvents): counts it. */
  linkEvents(): LinkEvents {
    const series = this.counters.linkStateChanges;
    const counters = new Map(
      LINK_STATE_CHANGES.map((change) => [change, series.series({ change })] as const),
    );
    return { stateChanged: (change) => counters.get(change)?.() };
  }

  rateLimitRefused(limiter: LimiterName): () => void {
    return this.counters.rateLimitRefusals.series({ limiter });
  }

  /** Counts a URL refused by the anti-phishing rule named `rule`. */
  urlRefusedBy(rule: string): void {
    this.counters.urlGuardRefusals.series({ rule })();
  }

  storeCall(operation: string): CallTimer {
    return timer(this.histograms.storeCallDuration.series({ operation }));
  }

  limiterCall(limiter: LimiterName, operation: 'consume' | 'peek'): CallTimer {
    return timer(this.histograms.limiterCallDuration.series({ limiter, operation }));
  }

  safeBrowsingLookup(result: SafeBrowsingResult): void {
    this.counters.safeBrowsingLookups.series({ result })();
  }

  /** Reports, at each scrape, how many reputation lookups wait for a free slot. */
  followSafeBrowsingQueue(queued: () => number): void {
    new Gauge({
      ...GAUGES.safeBrowsingQueued,
      registers: [this.registry],
      collect() {
        this.set(queued());
      },
    });
  }

  /** Reports, at each scrape, each change stream's state and the lag of its last change. */
  followChangeStreams(watches: readonly NamedChangeWatch[]): void {
    const reporting = watches.flatMap(({ stream, watch }) => {
      const status = watch.status?.bind(watch);
      return status ? [{ stream, status }] : [];
    });
    if (reporting.length === 0) return;
    new Gauge({
      ...GAUGES.changeStreamState,
      registers: [this.registry],
      collect() {
        for (const { stream, status } of reporting) {
          const current = status().state;
          for (const state of CHANGE_WATCH_STATES) {
            this.set({ stream, state }, current === state ? 1 : 0);
          }
        }
      },
    });
    new Gauge({
      ...GAUGES.changeStreamLag,
      registers: [this.registry],
      collect() {
        for (const { stream, status } of reporting) {
          const { lagSeconds } = status();
          if (lagSeconds !== undefined) this.set({ stream }, lagSeconds);
        }
      },
    });
  }

  /** Reports, at each scrape, whether the Redis limiters count in Redis or per process. */
  followLimiterBackend(state: () => LimiterBackendState): void {
    new Gauge({
      ...GAUGES.redisLimiterState,
      registers: [this.registry],
      collect() {
        const current = state();
        this.set({ state: 'shared' }, current === 'shared' ? 1 : 0);
        this.set({ state: 'fallback' }, current === 'fallback' ? 1 : 0);
      },
    });
  }
}
