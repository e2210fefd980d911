import { z } from 'zod';

/** Where the embedded store keeps its data unless DATA_DIR says otherwise (relative to the cwd). */
export const DEFAULT_DATA_DIR = './data';
/** The DATA_DIR value that selects the in-memory store (nothing survives the process). */
export const IN_MEMORY_DATA_DIR = ':memory:';

const port = z.coerce.number().int().min(0).max(65535);
const positive = z.coerce.number().int().positive();
const optionalText = z
  .string()
  .optional()
  .transform((value) => (value && value.trim() !== '' ? value.trim() : undefined));
const list = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  );

/** The process configuration, from the environment (every variable is listed in core/README.md). */
export const configSchema = z.object({
  PORT: port.default(8080),
  GRPC_PORT: port.default(50051),
  /** Prometheus metrics (GET /metrics) on their own port; 0 turns metrics off altogether. */
  METRICS_PORT: port.default(9464),
  HOST: z.string().min(1).default('127.0.0.1'),
  MONGODB_URI: optionalText,
  /** The embedded store's directory (LMDB), or `:memory:` for the in-process memory store. */
  DATA_DIR: z.string().trim().min(1).default(DEFAULT_DATA_DIR),
  REDIS_URL: optionalText,
  RATE_LIMIT_PER_MINUTE: positive.default(60),
  AUTH_FAILURES_PER_MINUTE: positive.default(30),
  SHORTLINK_SEED_FILE: optionalText,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RESERVED_ALIASES: list,
  REDIRECT_CACHE_MAX_AGE: z.coerce.number().int().nonnegative().default(90),
  TRUST_PROXY: optionalText,
  SHUTDOWN_TIMEOUT_MS: positive.default(10000),
  /** Open connections allowed per client address on the REST port; 0 = no cap. */
  MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().nonnegative().default(0),

  // Anti-phishing check (code 18); see core/url-guard/.
  BLOCKED_SHORTENER_DOMAINS: list,
  URL_BLOCKLIST_FILE: optionalText,
  URL_BLOCKLIST_POLL_MS: positive.default(2000),
  LINK_DOMAINS_REFRESH_SECONDS: positive.default(10),
  SAFE_BROWSING_URL: optionalText.refine(
    (value) => value === undefined || (/^https?:\/\//i.test(value) && URL.canParse(value)),
    'must be an http(s) URL',
  ),
  SAFE_BROWSING_KEY: optionalText,
  SAFE_BROWSING_FAIL: z.enum(['open', 'closed']).default('open'),
  SAFE_BROWSING_PER_MINUTE: positive.default(600),
  SAFE_BROWSING_CONCURRENCY: positive.default(4),
  SAFE_BROWSING_TIMEOUT_MS: positive.default(2000),
  SAFE_BROWSING_MAX_WAIT_MS: z.coerce.number().int().nonnegative().default(1000),
  SAFE_BROWSING_CLEAN_CACHE_SECONDS: z.coerce.number().int().nonnegative().default(300),
  SAFE_BROWSING_CACHE_ENTRIES: positive.default(10000),
  SAFE_BROWSING_THREAT_TYPES: list.transform((types) =>
    types.length > 0
      ? types
      : ['MALWARE', 'SOCIAL_ENGINEERING', 'UNWANTED_SOFTWARE', 'POTENTIALLY_HARMFUL_APPLICATION'],
  ),
});

export type Config = z.output<typeof configSchema>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
      .join('; ');
    throw new ConfigError(`invalid configuration: ${problems}`);
  }
  return parsed.data;
}
