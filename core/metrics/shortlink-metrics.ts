import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Which transport answered; the only values of the `gateway` label. */
export type GatewayLabel = 'rest' | 'grpc';
/** What was asked for; the only values of the `operation` label. */
export type Operation = 'create' | 'follow' | 'resolve';
/** Which budget refused a request: a token's, or a client address's failed token checks. */
export type LimiterName = 'token' | 'auth_failures';
/** How a reputation lookup was answered. */
export type SafeBrowsingResult = 'cache_hit' | 'miss' | 'error' | 'throttled';
/** Where the Redis limiters count: in Redis, or per process while Redis is away. */
export type LimiterBackendState = 'shared' | 'fallback';

const GATEWAY_OPERATIONS: ReadonlyArray<readonly [GatewayLabel, Operation]> = [
  ['rest', 'create'],
  ['rest', 'follow'],
  ['grpc', 'create'],
  ['grpc', 'resolve'],
];

/** Request latencies: a followed link takes well under a millisecond, a create a few. */
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Backend calls: in-process stores answer in microseconds, networked ones in milliseconds. */
const BACKEND_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5, 2];

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
  private readonly requests: Counter<'gateway' | 'operation' | 'code'>;
  private readonly requestDuration: Histogram<'gateway' | 'operation'>;
  private readonly linksCreated: Counter<'gateway'>;
  private readonly idempotentReplays: Counter<'gateway'>;
  private readonly rateLimitRefusals: Counter<'limiter'>;
  private readonly urlGuardRefusals: Counter<'rule'>;
  private readonly storeCallDuration: Histogram<'operation'>;
  private readonly limiterCallDuration: Histogram<'limiter' | 'operation'>;
  private readonly safeBrowsingLookups: Counter<'result'>;

  constructor(options: { registry?: Registry; processMetrics?: boolean } = {}) {
    const registry = options.registry ?? new Registry();
    this.registry = registry;
    const registers = [registry];
    this.requests = new Counter({
      name: 'shortlink_requests_total',
      help: 'Requests answered, by gateway, operation and the contract code of the answer (0 = success).',
      labelNames: ['gateway', 'operation', 'code'],
      registers,
    });
    this.requestDuration = new Histogram({
      name: 'shortlink_request_duration_seconds',
      help: 'Time from a request reaching its handler to its answer, by gateway and operation.',
      labelNames: ['gateway', 'operation'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.linksCreated = new Counter({
      name: 'shortlink_links_created_total',
      help: 'Short links created, by gateway.',
      labelNames: ['gateway'],
      registers,
    });
    this.idempotentReplays = new Counter({
      name: 'shortlink_idempotent_replays_total',
      help: 'Create requests answered by replaying the recorded answer of an earlier one with the same Idempotency-Key.',
      labelNames: ['gateway'],
      registers,
    });
    this.rateLimitRefusals = new Counter({
      name: 'shortlink_rate_limit_refusals_total',
      help: 'Rate-limit decisions that refused a request, by limiter (token budget, or failed token checks per client address).',
      labelNames: ['limiter'],
      registers,
    });
    this.urlGuardRefusals = new Counter({
      name: 'shortlink_url_guard_refusals_total',
      help: 'URLs refused by the anti-phishing check, by the rule that refused them.',
      labelNames: ['rule'],
      registers,
    });
    this.storeCallDuration = new Histogram({
      name: 'shortlink_store_call_duration_seconds',
      help: 'Duration of store calls, by operation, failed calls included.',
      labelNames: ['operation'],
      buckets: BACKEND_BUCKETS,
      registers,
    });
    this.limiterCallDuration = new Histogram({
      name: 'shortlink_rate_limiter_call_duration_seconds',
      help: 'Duration of rate-limiter calls, by limiter and operation, failed calls included.',
      labelNames: ['limiter', 'operation'],
      buckets: BACKEND_BUCKETS,
      registers,
    });
    this.safeBrowsingLookups = new Counter({
      name: 'shortlink_safe_browsing_lookups_total',
      help: 'Reputation lookups, by how they were answered: from the cache, by a call to the service, by a failed call, or not sent for lack of quota or a free slot.',
      labelNames: ['result'],
      registers,
    });
    // Series that exist from the start read 0 rather than missing until their first event.
    for (const [gateway, operation] of GATEWAY_OPERATIONS) {
      this.requests.labels(gateway, operation, '0');
      this.requestDuration.labels(gateway, operation);
    }
    for (const gateway of ['rest', 'grpc'] as const) {
      this.linksCreated.labels(gateway);
      this.idempotentReplays.labels(gateway);
    }
    for (const limiter of ['token', 'auth_failures'] as const) {
      this.rateLimitRefusals.labels(limiter);
    }
    if (options.processMetrics ?? true) {
      collectDefaultMetrics({ register: registry });
      // Gauges named like counters, which promtool's lint refuses; the same figures stay
      // available by type in nodejs_active_handles, nodejs_active_requests, nodejs_active_resources.
      for (const name of LINT_FAILING_DEFAULTS) registry.removeSingleMetric(name);
    }
  }

  /** Counts and times `operation` on `gateway`, with the label children bound once. */
  operation(gateway: GatewayLabel, operation: Operation): OperationMetrics {
    const duration = this.requestDuration.labels(gateway, operation);
    const byCode = new Map<number, Counter.Internal>();
    return {
      observe: (code, startedAt) => {
        duration.observe(secondsSince(startedAt));
        let counter = byCode.get(code);
        if (!counter) {
          counter = this.requests.labels(gateway, operation, String(code));
          byCode.set(code, counter);
        }
        counter.inc();
      },
    };
  }

  linkCreatedOn(gateway: GatewayLabel): () => void {
    const counter = this.linksCreated.labels(gateway);
    return () => counter.inc();
  }

  /** Where an idempotent replay is answered: counts it. */
  replayedOn(gateway: GatewayLabel): () => void {
    const counter = this.idempotentReplays.labels(gateway);
    return () => counter.inc();
  }

  rateLimitRefused(limiter: LimiterName): () => void {
    const counter = this.rateLimitRefusals.labels(limiter);
    return () => counter.inc();
  }

  urlRefusedBy(rule: string): () => void {
    const counter = this.urlGuardRefusals.labels(rule);
    return () => counter.inc();
  }

  storeCall(operation: string): CallTimer {
    const histogram = this.storeCallDuration.labels(operation);
    return { observe: (startedAt) => histogram.observe(secondsSince(startedAt)) };
  }

  limiterCall(limiter: LimiterName, operation: 'consume' | 'peek'): CallTimer {
    const histogram = this.limiterCallDuration.labels(limiter, operation);
    return { observe: (startedAt) => histogram.observe(secondsSince(startedAt)) };
  }

  safeBrowsingLookup(result: SafeBrowsingResult): void {
    this.safeBrowsingLookups.inc({ result });
  }

  /** Reports, at each scrape, how many reputation lookups wait for a free slot. */
  followSafeBrowsingQueue(queued: () => number): void {
    new Gauge({
      name: 'shortlink_safe_browsing_queued',
      help: 'Reputation lookups waiting for a free slot under the quota and concurrency limits.',
      registers: [this.registry],
      collect() {
        this.set(queued());
      },
    });
  }

  /** Reports, at each scrape, whether the Redis limiters count in Redis or per process. */
  followLimiterBackend(state: () => LimiterBackendState): void {
    new Gauge({
      name: 'shortlink_redis_limiter_state',
      help: 'Where the Redis rate limiters count: 1 for the current state (shared in Redis, or fallback per process), 0 for the other.',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        const current = state();
        this.set({ state: 'shared' }, current === 'shared' ? 1 : 0);
        this.set({ state: 'fallback' }, current === 'fallback' ? 1 : 0);
      },
    });
  }
}
