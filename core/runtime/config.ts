import { availableParallelism } from 'node:os';
import { z } from 'zod';
import {
  bindAddressSetting,
  entriesSetting,
  flagSetting,
  listSetting as list,
  nonnegativeSetting,
  optionalTextSetting as optionalText,
  parseSettings,
  portSetting,
  positiveEntriesSetting,
  positiveSetting as positive,
  positiveTimerMsSetting,
  positiveTimerSecondsSetting,
  SHARED_GATEWAY_SETTINGS,
  timerMsSetting,
} from './settings';
import {
  DEFAULT_CHANGE_PROPAGATION_SECONDS,
  DEFAULT_IDENTITY_CACHE_SIZE,
  DEFAULT_IDENTITY_CACHE_TTL_SECONDS,
  DEFAULT_LINK_CACHE_SIZE,
  DEFAULT_STALE_IF_ERROR_SECONDS,
} from '../caches/cached-store';
import {
  DEFAULT_IDEMPOTENCY_LEASE_SECONDS,
  DEFAULT_IDEMPOTENCY_TTL_SECONDS,
  MAX_IDEMPOTENCY_LEASE_SECONDS,
  MAX_IDEMPOTENCY_TTL_SECONDS,
} from '../idempotency/idempotency-defaults';
import { DEFAULT_LINK_DOMAINS_REFRESH_SECONDS } from '../links/link-domain-directory';
import { DEFAULT_ID_BLOCK_SIZE, MAX_ID_BLOCK_SIZE } from '../adapters/mongodb/block-id-allocator';
import { DEFAULT_MONGODB_TIMEOUT_MS } from '../adapters/mongodb/operation-deadline';
import {
  DEFAULT_AUTH_FAILURE_TRACKED_ADDRESSES,
  DEFAULT_AUTH_FAILURES_PER_MINUTE,
  DEFAULT_FOLLOW_MISSES_PER_MINUTE,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
} from '../rate-limit/limits';
import { DEFAULT_VISITS_FLUSH_SECONDS, DEFAULT_VISITS_PENDING_MAX } from '../visits/visit-counter';

/** A longer interval loses more to a crash than counting visits is worth. */
const MAX_VISITS_FLUSH_SECONDS = 300;
/** Where the embedded store keeps its data unless DATA_DIR says otherwise (relative to the cwd). */
export const DEFAULT_DATA_DIR = './data';
/**
 * The most WORKERS (and what `auto` gives at most). Every process on an LMDB DATA_DIR takes a slot
 * of its reader table, which holds 126: past about 120 workers the rest failed to start
 * (MDB_READERS_FULL), and the primary had forked them all at once (WORKERS=1000 on a 2-core host
 * took 17 GB of memory). 64 leaves room for the primary, the admin CLI and a backup, and is more
 * processes than LMDB's one writer at a time can keep busy.
 */
export const MAX_WORKERS = 64;
/** What a valid WORKERS setting gives: `auto` is one per available core, at most MAX_WORKERS. */
export function workerCount(setting: string, cores = availableParallelism()): number {
  return setting === 'auto' ? Math.min(cores, MAX_WORKERS) : Number(setting);
}
/** Where the metrics port listens unless METRICS_HOST says otherwise: this host only. */
const DEFAULT_METRICS_HOST = '127.0.0.1';
/** Scrapes collected at once unless METRICS_MAX_CONCURRENT_SCRAPES says otherwise. */
export const DEFAULT_METRICS_MAX_CONCURRENT_SCRAPES = 4;
/** A bound that still bounds: more scrapers than this at once is a misconfiguration or an attack. */
const MAX_METRICS_SCRAPES = 100;
/** The DATA_DIR value that selects the in-memory store (nothing survives the process). */
export const IN_MEMORY_DATA_DIR = ':memory:';

/**
 * The process configuration the core and the composition root read. Transport settings (ports,
 * HOST, proxies, redirect caching) belong to each gateway's own configuration.
 */
export const configSchema = z
  .object({
    /**
     * Prometheus metrics (GET /metrics) on their own port, bound to METRICS_HOST; 0 turns metrics
     * off altogether (nothing is measured). With WORKERS only the primary binds it.
     */
    METRICS_PORT: portSetting.default(9464),
    /**
     * The address the metrics port binds: this host only unless set, whatever HOST is, so serving
     * the API to other machines (HOST=0.0.0.0) does not publish the metrics with it.
     */
    METRICS_HOST: bindAddressSetting.default(DEFAULT_METRICS_HOST),
    /**
     * Scrapes of GET /metrics collected at once; one more is answered 503 with Retry-After at once,
     * so scrapers cannot pile up collections (each reads every metric, and a WORKERS primary asks
     * every worker).
     */
    METRICS_MAX_CONCURRENT_SCRAPES: positive
      .max(MAX_METRICS_SCRAPES, `must be at most ${MAX_METRICS_SCRAPES}`)
      .default(DEFAULT_METRICS_MAX_CONCURRENT_SCRAPES),
    ...SHARED_GATEWAY_SETTINGS,
    /** MongoDB connection string, used instead of the embedded store (adapters/mongodb/). */
    MONGODB_URI: optionalText,
    /**
     * Link ids a process reserves with one update of MongoDB's counter document and then hands out
     * alone; a stopped process leaves the rest of its blocks unused (MongoDB only).
     */
    ID_BLOCK_SIZE: positive
      .max(
        MAX_ID_BLOCK_SIZE,
        `must be at most ${MAX_ID_BLOCK_SIZE} (a stopped process loses the rest of its block)`,
      )
      .default(DEFAULT_ID_BLOCK_SIZE),
    /**
     * The longest one MongoDB call of a request (a store or limiter call, with its round trips)
     * waits before the request answers 23; 0: no bound but the driver's server-selection (5 s)
     * and socket (10 s) timeouts.
     */
    MONGODB_TIMEOUT_MS: timerMsSetting.default(DEFAULT_MONGODB_TIMEOUT_MS),
    /**
     * How a process hears of changes made elsewhere: `stream` (its own change streams), `publish`
     * (its own streams, republished on Redis), `redis` (no stream: what the publishers republish).
     */
    MONGODB_INVALIDATION: z.enum(['stream', 'publish', 'redis']).default('stream'),
    /** 0: start-up only lists MongoDB's indexes, and refuses to start when one is missing. */
    MONGODB_CREATE_INDEXES: flagSetting.default(true),
    /** The embedded store's directory (LMDB), or `:memory:` for the in-process memory store. */
    DATA_DIR: z.string().trim().min(1).default(DEFAULT_DATA_DIR),
    /** Redis for the shared rate limits (one server, a Cluster, or Sentinels; adapters/redis/). */
    REDIS_URL: optionalText,
    /** Requests per token per minute, across every gateway and process sharing the limiter. */
    RATE_LIMIT_PER_MINUTE: positive.default(DEFAULT_RATE_LIMIT_PER_MINUTE),
    /** Failed token checks per client address per minute; past it RATE_LIMITED. */
    AUTH_FAILURES_PER_MINUTE: positive.default(DEFAULT_AUTH_FAILURES_PER_MINUTE),
    /**
     * Unknown aliases followed per client address per minute (REST GET/HEAD /<alias> and gRPC
     * ResolveShortLink together); past it RATE_LIMITED. 0: no budget.
     */
    FOLLOW_MISSES_PER_MINUTE: nonnegativeSetting.default(DEFAULT_FOLLOW_MISSES_PER_MINUTE),
    /**
     * Client addresses (IPv6: /64 networks) each in-memory per-address table holds at most: the
     * auth-failure and follow-miss limiters', and the refusals a shared follow-miss limiter recalls.
     */
    AUTH_FAILURE_TRACKED_ADDRESSES: positiveEntriesSetting.default(
      DEFAULT_AUTH_FAILURE_TRACKED_ADDRESSES,
    ),
    /** JSON file of organizations, groups, users and tokens, applied idempotently at start. */
    SHORTLINK_SEED_FILE: optionalText,
    /** pino's level for the service's log (one access line per request at `info`). */
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info'),
    /** Extra reserved aliases, comma-separated, added to the paths the service serves itself. */
    RESERVED_ALIASES: list,
    /** How long a graceful shutdown may take before the process exits anyway. */
    SHUTDOWN_TIMEOUT_MS: positiveTimerMsSetting.default(10000),
    /** Worker processes serving the gateways (`auto`: one per available core); see ./cluster/. */
    WORKERS: z
      .string()
      .trim()
      .regex(/^(auto|[1-9]\d*)$/, 'must be a whole number of at least 1, or auto')
      .transform((value) => workerCount(value))
      .refine((workers) => workers <= MAX_WORKERS, `must be at most ${MAX_WORKERS}`)
      .default(1),
    /** How long a completed request's answer is replayed for its idempotency key. */
    IDEMPOTENCY_TTL_SECONDS: positive
      .max(
        MAX_IDEMPOTENCY_TTL_SECONDS,
        `must be at most ${MAX_IDEMPOTENCY_TTL_SECONDS} (ten years)`,
      )
      .default(DEFAULT_IDEMPOTENCY_TTL_SECONDS),
    /**
     * How long a keyed request's claim holds its key without a renewal: renewed every third of it
     * while the request runs, so it bounds how long the key of a request whose process died stays
     * answered IDEMPOTENCY_KEY_IN_USE, not how long a request may take.
     */
    IDEMPOTENCY_LEASE_SECONDS: positive
      .max(
        MAX_IDEMPOTENCY_LEASE_SECONDS,
        `must be at most ${MAX_IDEMPOTENCY_LEASE_SECONDS} (an hour)`,
      )
      .default(DEFAULT_IDEMPOTENCY_LEASE_SECONDS),
    /** Found links kept in each process for following; 0 = no link cache. */
    LINK_CACHE_SIZE: entriesSetting.default(DEFAULT_LINK_CACHE_SIZE),
    /**
     * How long identity lookups are trusted in each process, tokens and organizations at most
     * CHANGE_PROPAGATION_SECONDS; 0 = no identity cache.
     */
    IDENTITY_CACHE_TTL_SECONDS: nonnegativeSetting.default(DEFAULT_IDENTITY_CACHE_TTL_SECONDS),
    /**
     * Identity lookups kept in each process per kind (tokens, organizations by key and by id,
     * memberships, groups); the least recently used go first.
     */
    IDENTITY_CACHE_SIZE: positiveEntriesSetting.default(DEFAULT_IDENTITY_CACHE_SIZE),
    /**
     * The bound, in seconds, within which a link's disable or enable, an organization's
     * deactivation and a token's revocation reach every process and worker: cached links,
     * organizations and tokens are trusted no longer (sooner where the store reports changes).
     */
    CHANGE_PROPAGATION_SECONDS: positiveTimerSecondsSetting.default(
      DEFAULT_CHANGE_PROPAGATION_SECONDS,
    ),
    /**
     * How long past CHANGE_PROPAGATION_SECONDS a cached link and its organization are still
     * followed while the store cannot answer (an election, an outage); 0: never. A link disabled
     * elsewhere just before an outage may redirect that much longer.
     */
    STALE_IF_ERROR_SECONDS: nonnegativeSetting.default(DEFAULT_STALE_IF_ERROR_SECONDS),
    /**
     * How often each process sends the visits it counted to the store, in one write; a crash
     * (kill -9) loses at most this long's visits of that process.
     */
    VISITS_FLUSH_SECONDS: positive
      .max(MAX_VISITS_FLUSH_SECONDS, `must be at most ${MAX_VISITS_FLUSH_SECONDS}`)
      .default(DEFAULT_VISITS_FLUSH_SECONDS),
    /**
     * Link-days of counted visits each process holds unsent at most (while the store is down);
     * visits past it are dropped and counted in shortlink_visits_dropped_total.
     */
    VISITS_PENDING_MAX: positiveEntriesSetting.default(DEFAULT_VISITS_PENDING_MAX),
    /** With REDIS_URL listing sentinels: the name of the master they watch. */
    REDIS_SENTINEL_NAME: optionalText,

    // Anti-phishing check (URL_BLOCKED); see core/url-guard/.
    /**
     * `1`: URLs to loopback, private, link-local, carrier-grade NAT, reserved, metadata...
     * addresses, metadata names and localhost pass (url-guard/private-target-rule.ts).
     */
    ALLOW_PRIVATE_TARGETS: z
      .enum(['0', '1', 'false', 'true'], { message: 'must be 1 (or true) to allow, 0 (or false)' })
      .optional()
      .transform((value) => value === '1' || value === 'true'),
    /** Domains of other shorteners to refuse, with their subdomains, comma-separated. */
    BLOCKED_SHORTENER_DOMAINS: list,
    /** Path of the blocklist file (url-guard/README.md gives its format). */
    URL_BLOCKLIST_FILE: optionalText,
    /** How often the blocklist file is checked for changes. */
    URL_BLOCKLIST_POLL_MS: positiveTimerMsSetting.default(2000),
    /** How long the link domains are trusted by the loop check and by following, in each process. */
    LINK_DOMAINS_REFRESH_SECONDS: positiveTimerSecondsSetting.default(
      DEFAULT_LINK_DOMAINS_REFRESH_SECONDS,
    ),
    /** Base URL of a Safe Browsing v4 compatible reputation service; unset: no lookup. */
    SAFE_BROWSING_URL: optionalText.refine(
      (value) => value === undefined || (/^https?:\/\//i.test(value) && URL.canParse(value)),
      'must be an http(s) URL',
    ),
    /** API key, sent as `?key=` only to SAFE_BROWSING_URL. */
    SAFE_BROWSING_KEY: optionalText,
    /** What a check without a verdict means: `open` lets the URL pass, `closed` refuses it. */
    SAFE_BROWSING_FAIL: z.enum(['open', 'closed']).default('open'),
    /** Reputation calls started per minute (the quota), shared fairly between organizations. */
    SAFE_BROWSING_PER_MINUTE: positive.default(600),
    /** Reputation calls running at the same time. */
    SAFE_BROWSING_CONCURRENCY: positive.default(4),
    /** Time limit of one reputation call. */
    SAFE_BROWSING_TIMEOUT_MS: positiveTimerMsSetting.default(2000),
    /** How long a check waits for a free concurrency slot. */
    SAFE_BROWSING_MAX_WAIT_MS: timerMsSetting.default(1000),
    /** How long a clean answer is cached (0: not cached). */
    SAFE_BROWSING_CLEAN_CACHE_SECONDS: nonnegativeSetting.default(300),
    /** The most URLs kept in the reputation cache. */
    SAFE_BROWSING_CACHE_ENTRIES: positiveEntriesSetting.default(10000),
    /** Threat types to ask about, comma-separated (the four usual ones when unset). */
    SAFE_BROWSING_THREAT_TYPES: list.transform((types) =>
      types.length > 0
        ? types
        : ['MALWARE', 'SOCIAL_ENGINEERING', 'UNWANTED_SOFTWARE', 'POTENTIALLY_HARMFUL_APPLICATION'],
    ),
  })
  .superRefine(settingsRules);

export type Config = z.output<typeof configSchema>;

/**
 * The rules between settings, declared with them and checked when they are read (every broken
 * one named in the one ConfigError, with the setting it is about). Any schema that holds these
 * settings (the process's, gateway-http/service-settings.ts) applies them too.
 */
export function settingsRules(
  settings: Pick<
    Config,
    | 'SAFE_BROWSING_KEY'
    | 'SAFE_BROWSING_URL'
    | 'REDIS_SENTINEL_NAME'
    | 'REDIS_URL'
    | 'WORKERS'
    | 'MONGODB_URI'
    | 'MONGODB_INVALIDATION'
    | 'DATA_DIR'
  >,
  ctx: z.RefinementCtx,
): void {
  const refuse = (setting: string, message: string) =>
    ctx.addIssue({ code: 'custom', path: [setting], message });
  if (settings.SAFE_BROWSING_KEY && !settings.SAFE_BROWSING_URL) {
    // The key is only ever sent to a URL the operator wrote down; there is no default.
    refuse('SAFE_BROWSING_KEY', 'is set but SAFE_BROWSING_URL is not');
  }
  if (settings.REDIS_SENTINEL_NAME && !settings.REDIS_URL) {
    refuse('REDIS_SENTINEL_NAME', 'needs REDIS_URL listing the sentinels');
  }
  if (settings.MONGODB_INVALIDATION !== 'stream' && !(settings.REDIS_URL && settings.MONGODB_URI)) {
    refuse(
      'MONGODB_INVALIDATION',
      `is ${settings.MONGODB_INVALIDATION}, which republishes MongoDB's changes through Redis: it needs MONGODB_URI and REDIS_URL`,
    );
  }
  // The in-memory store lives inside one process: each worker would hold its own links and
  // credentials. Refused at start rather than served wrong.
  if (settings.WORKERS > 1 && storeKindOf(settings) === 'memory') {
    refuse(
      'WORKERS',
      `is ${settings.WORKERS}, which needs a store the worker processes share, but DATA_DIR=${IN_MEMORY_DATA_DIR} keeps everything inside one process; give DATA_DIR a directory (the LMDB store, default ./data) or set MONGODB_URI, or use WORKERS=1`,
    );
  }
}

export { ConfigError } from './settings';

/** Which store a configuration selects: MongoDB with MONGODB_URI, else memory or LMDB by DATA_DIR. */
export function storeKindOf(
  config: Pick<Config, 'MONGODB_URI' | 'DATA_DIR'>,
): 'mongodb' | 'memory' | 'lmdb' {
  if (config.MONGODB_URI) return 'mongodb';
  return config.DATA_DIR === IN_MEMORY_DATA_DIR ? 'memory' : 'lmdb';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return parseSettings(configSchema, env);
}
