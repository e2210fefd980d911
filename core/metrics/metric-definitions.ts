import type { Registry } from 'prom-client';
import { seriesCounter, type SeriesCounter } from './series-counter';
import { seriesHistogram, type SeriesHistogram } from './series-histogram';

/** Request latencies: a followed link takes well under a millisecond, a create a few. */
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Backend calls: in-process stores answer in microseconds, networked ones in milliseconds. */
const BACKEND_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5, 2];

interface MetricDefinition {
  name: string;
  help: string;
  labelNames: readonly string[];
}

/** Every counter the service exports, by the name ShortlinkMetrics holds it under. */
const COUNTERS = {
  requests: {
    name: 'shortlink_requests_total',
    help: 'Requests answered, by gateway, operation and the contract code of the answer (0 = success).',
    labelNames: ['gateway', 'operation', 'code'],
  },
  linksCreated: {
    name: 'shortlink_links_created_total',
    help: 'Short links created, by gateway.',
    labelNames: ['gateway'],
  },
  idempotentReplays: {
    name: 'shortlink_idempotent_replays_total',
    help: 'Create requests answered by replaying the recorded answer of an earlier one with the same Idempotency-Key.',
    labelNames: ['gateway'],
  },
  rateLimitRefusals: {
    name: 'shortlink_rate_limit_refusals_total',
    help: 'Rate-limit decisions that refused a request, by limiter (token budget, failed token checks per client address, or unknown aliases followed per client address).',
    labelNames: ['limiter'],
  },
  urlGuardRefusals: {
    name: 'shortlink_url_guard_refusals_total',
    help: 'URLs refused by the anti-phishing check, by the rule that refused them.',
    labelNames: ['rule'],
  },
  safeBrowsingLookups: {
    name: 'shortlink_safe_browsing_lookups_total',
    help: 'Reputation lookups, by how they were answered: from the cache, by a call to the service, by a failed call, or not sent for lack of quota or a free slot.',
    labelNames: ['result'],
  },
  follows: {
    name: 'shortlink_follows_total',
    help: 'Short links followed (REST GET or HEAD /<alias>, gRPC ResolveShortLink), by gateway and outcome: redirect (the link answered), not_found (code 24), gone (code 28: disabled, organization inactive or target now refused), rate_limited (code 19: the client address is past its budget of unknown aliases), error (any other code).',
    labelNames: ['gateway', 'outcome'],
  },
  linkStateChanges: {
    name: 'shortlink_link_state_changes_total',
    help: "Links whose state this process changed through the core's procedures (members, over gRPC or an embedding), by change (disabled, enabled). The admin CLI, a process of its own, is counted in no server's metrics: its changes are in each link's history.",
    labelNames: ['change'],
  },
  visitsDropped: {
    name: 'shortlink_visits_dropped_total',
    help: 'Redirects not counted in the visits: more link-days waiting for the store than VISITS_PENDING_MAX, or still unsent when the process stopped.',
    labelNames: [],
  },
} as const satisfies Record<string, MetricDefinition>;

/** Every histogram the service exports, by the name ShortlinkMetrics holds it under. */
const HISTOGRAMS = {
  requestDuration: {
    name: 'shortlink_request_duration_seconds',
    help: 'Time from a request reaching its handler to its answer, by gateway and operation.',
    labelNames: ['gateway', 'operation'],
    buckets: REQUEST_BUCKETS,
  },
  storeCallDuration: {
    name: 'shortlink_store_call_duration_seconds',
    help: 'Duration of calls that reach the store (cache hits are not store calls), by operation, failed calls included.',
    labelNames: ['operation'],
    buckets: BACKEND_BUCKETS,
  },
  limiterCallDuration: {
    name: 'shortlink_rate_limiter_call_duration_seconds',
    help: 'Duration of rate-limiter calls, by limiter and operation, failed calls included.',
    labelNames: ['limiter', 'operation'],
    buckets: BACKEND_BUCKETS,
  },
} as const satisfies Record<string, MetricDefinition & { buckets: number[] }>;

/** The gauges, registered when a component reports its state (see ShortlinkMetrics.follow*). */
export const GAUGES = {
  safeBrowsingQueued: {
    name: 'shortlink_safe_browsing_queued',
    help: 'Reputation lookups waiting for a free slot under the quota and concurrency limits.',
    labelNames: [],
  },
  changeStreamState: {
    name: 'shortlink_change_stream_state',
    help: 'Each change stream the caches follow (link, identity), by state: 1 for the current one (open: following changes; failed: waiting to reopen; unavailable: none possible, the caches rely on their TTLs), 0 for the others.',
    labelNames: ['stream', 'state'],
  },
  changeStreamLag: {
    name: 'shortlink_change_stream_lag_seconds',
    help: 'Seconds between when the last change a change stream delivered was made on the server (its wall time, else its oplog time) and when this process heard it.',
    labelNames: ['stream'],
  },
  redisLimiterState: {
    name: 'shortlink_redis_limiter_state',
    help: 'Where the Redis rate limiters count: 1 for the current state (shared in Redis, or fallback per process), 0 for the other.',
    labelNames: ['state'],
  },
} as const satisfies Record<string, MetricDefinition>;

type LabelsOf<D extends MetricDefinition> = D['labelNames'][number];

export type Counters = {
  readonly [K in keyof typeof COUNTERS]: SeriesCounter<LabelsOf<(typeof COUNTERS)[K]>>;
};
export type Histograms = {
  readonly [K in keyof typeof HISTOGRAMS]: SeriesHistogram<LabelsOf<(typeof HISTOGRAMS)[K]>>;
};

/** One metric per definition, under the definition's key. */
function registerEach<D extends Record<string, MetricDefinition>, M>(
  definitions: D,
  make: (definition: D[keyof D]) => M,
): Record<keyof D, M> {
  const entries = Object.entries(definitions).map(([field, definition]) => [
    field,
    make(definition as D[keyof D]),
  ]);
  return Object.fromEntries(entries) as Record<keyof D, M>;
}

/** Every counter of COUNTERS, on `registry`. */
export function registerCounters(registry: Registry): Counters {
  return registerEach(COUNTERS, (d) => seriesCounter({ ...d, registers: [registry] }));
}

/** Every histogram of HISTOGRAMS, on `registry`. */
export function registerHistograms(registry: Registry): Histograms {
  return registerEach(HISTOGRAMS, (d) => seriesHistogram({ ...d, registers: [registry] }));
}
